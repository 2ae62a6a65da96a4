// Fields that link types to each other, all through the per-request loaders of schema/loaders.ts.
import './recipe-links.ts';
import './material-levels.ts';
import './order.ts';
import './bill-links.ts';
import './location-links.ts';
import './material-links.ts';
import './work-order-part-links.ts';
import './header-links.ts';
