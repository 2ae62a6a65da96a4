import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_TOPICS } from '../../src/modules/events/event-vocabulary.ts';
import { newWebhookSecret, webhookHeaders } from '../../src/modules/events/webhook-signing.ts';

// Issue 22 item 7: docs/events.md documents every topic of the vocabulary (and no other), and its
// verification snippets, in Node and in Python with the standard library, accept what bomcore
// signs and refuse a changed body.

const doc = readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8');
const block = (language: string) => new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(doc)![1]!;

describe('docs/events.md', () => {
  it('has one section per topic of the vocabulary, and none for a topic it lacks', () => {
    const documented = [...doc.matchAll(/^#### `([a-z_.]+)`$/gm)].map((m) => m[1]);
    expect(documented).toEqual(EVENT_TOPICS);
  });

  const secret = newWebhookSecret();
  const body = '{"id":"evt_1","type":"bom.updated","data":{"quantity":0.000001}}';
  const headers = webhookHeaders([newWebhookSecret(), secret], 'evt_1', Math.floor(Date.now() / 1000), body);

  it('the Node snippet verifies a bomcore signature (also during a rotation) and refuses a changed body', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'events-doc-'));
    writeFileSync(join(dir, 'verify.mjs'), block('js'));
    const { verifyBomcoreWebhook } = await import(join(dir, 'verify.mjs'));
    expect(verifyBomcoreWebhook(secret, headers, body)).toBe(true);
    expect(verifyBomcoreWebhook(secret, headers, body.replace('0.000001', '1'))).toBe(false);
  });

  it('the Python snippet (standard library only) verifies a bomcore signature and refuses a changed body', () => {
    const program = `${block('python')}\nimport json, sys\nh = json.loads(sys.argv[1])\n` +
      `print(verify_bomcore_webhook(sys.argv[2], h, sys.argv[3].encode()), verify_bomcore_webhook(sys.argv[2], h, b"{}"))`;
    const out = execFileSync('python3', ['-c', program, JSON.stringify(headers), secret, body], { encoding: 'utf8' });
    expect(out.trim()).toBe('True False');
  });
});
