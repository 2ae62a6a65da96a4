// The value sets the kernel's catalogue sources (src/kernel/catalog-sources.ts) speak: recipes, stock and
// materials all read them, so they sit below every module. The recipes and materials vocabularies
// give them to the layers above.

/**
 * Origin of a material: numeric variant ids are platform-linked (levels live on the platform),
 * `VMAT-…` ids are virtual.
 */
export const MATERIAL_ORIGINS = ['platform', 'virtual'] as const;
export type MaterialOrigin = (typeof MATERIAL_ORIGINS)[number];
