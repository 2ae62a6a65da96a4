// The work-order and people write surface: creating work orders, their records (QC reviews,
// rework items, documents, conversation) and assignees.
import './results.ts';
import './create.ts';
import './records.ts';
import './assignees.ts';
