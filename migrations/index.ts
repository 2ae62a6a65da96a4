import { Migration20261122000000 } from './Migration20261122000000.ts';
import { Migration20261122120000 } from './Migration20261122120000.ts';
import { Migration20261122140000 } from './Migration20261122140000.ts';
import { Migration20261122150000 } from './Migration20261122150000.ts';
import { Migration20261122160000 } from './Migration20261122160000.ts';
import { Migration20261122200000 } from './Migration20261122200000.ts';
import { Migration20261122210000 } from './Migration20261122210000.ts';
import { Migration20261123000000 } from './Migration20261123000000.ts';
import { Migration20261123100000 } from './Migration20261123100000.ts';
import { Migration20261126100000 } from './Migration20261126100000.ts';
import { Migration20261127000000 } from './Migration20261127000000.ts';
import { Migration20261127010000 } from './Migration20261127010000.ts';
import { Migration20261128120000 } from './Migration20261128120000.ts';
import { Migration20261129090000 } from './Migration20261129090000.ts';
import { Migration20261129100000 } from './Migration20261129100000.ts';
import { Migration20261130080000 } from './Migration20261130080000.ts';
import { Migration20261130100000 } from './Migration20261130100000.ts';
import { Migration20261201090000 } from './Migration20261201090000.ts';
import { Migration20261201100000 } from './Migration20261201100000.ts';
import { Migration20261202090000 } from './Migration20261202090000.ts';
import { Migration20261202100000 } from './Migration20261202100000.ts';
import { Migration20261203090000 } from './Migration20261203090000.ts';

// Migrations run in this order. Add each new migration here (the loader does not scan folders).
export const migrationsList = [
  { name: 'Migration20261122000000', class: Migration20261122000000 },
  { name: 'Migration20261122120000', class: Migration20261122120000 },
  { name: 'Migration20261122140000', class: Migration20261122140000 },
  { name: 'Migration20261122150000', class: Migration20261122150000 },
  { name: 'Migration20261122160000', class: Migration20261122160000 },
  { name: 'Migration20261122200000', class: Migration20261122200000 },
  { name: 'Migration20261122210000', class: Migration20261122210000 },
  { name: 'Migration20261123000000', class: Migration20261123000000 },
  { name: 'Migration20261123100000', class: Migration20261123100000 },
  { name: 'Migration20261126100000', class: Migration20261126100000 },
  { name: 'Migration20261127000000', class: Migration20261127000000 },
  { name: 'Migration20261127010000', class: Migration20261127010000 },
  { name: 'Migration20261128120000', class: Migration20261128120000 },
  { name: 'Migration20261129090000', class: Migration20261129090000 },
  { name: 'Migration20261129100000', class: Migration20261129100000 },
  { name: 'Migration20261130080000', class: Migration20261130080000 },
  { name: 'Migration20261130100000', class: Migration20261130100000 },
  { name: 'Migration20261201090000', class: Migration20261201090000 },
  { name: 'Migration20261201100000', class: Migration20261201100000 },
  { name: 'Migration20261202090000', class: Migration20261202090000 },
  { name: 'Migration20261202100000', class: Migration20261202100000 },
  { name: 'Migration20261203090000', class: Migration20261203090000 },
];
