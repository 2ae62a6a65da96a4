// Cursor connections over the lists and the parts of the navigable read graph.
import './list-connections.ts';
import './adjustments.ts';
import './bom-graph.ts';
import './work-order-graph.ts';
import './bom-work-orders.ts';
