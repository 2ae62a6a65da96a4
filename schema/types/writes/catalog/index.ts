// The catalogue write surface: virtual materials, cost factors, assembly bills, BOMs and location rules.
import './inputs.ts';
import './materials.ts';
import './cost-factors.ts';
import './bills.ts';
import './location-rules.ts';
import './archived.ts';
