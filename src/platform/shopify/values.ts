import { exact } from '../../kernel/numbers/index.ts';

// How Shopify's values become the mirror's, said once for the three readers of Shopify (the full
// sync's bulk export, the webhooks' REST payloads, the reconciliation's reads).

/** Shopify's title of the one variant of a product without options: bomcore says no variant name. */
const DEFAULT_VARIANT_TITLE = 'Default Title';

/** A text field: blank or absent is null. */
export function blankToNull(text: string | null | undefined): string | null {
  return text === null || text === undefined || text.trim() === '' ? null : text;
}

/** A Money or Decimal text as exact decimal text; absent is null. */
export function decimalOrNull(text: string | null | undefined): string | null {
  return text === null || text === undefined ? null : exact(text).toFixed();
}

/** A variant's name: none for a blank title or Shopify's "Default Title". */
export function variantNameOf(title: string | null | undefined): string | null {
  const name = blankToNull(title);
  return name === DEFAULT_VARIANT_TITLE ? null : name;
}
