import './enums.ts';
import './work-order.ts';
import './operations.ts';
