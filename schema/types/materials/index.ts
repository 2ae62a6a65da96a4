// Raw materials and per-location stock (issue 3): one file per GraphQL type, imported here.
import './enums.ts';
import './raw-material.ts';
import './inventory.ts';
import './stock.ts';
import './allocation.ts';
