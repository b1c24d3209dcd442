/** A product's events. */
export const PRODUCT_EVENTS = ['product.created', 'product.updated', 'product.deleted'] as const;
