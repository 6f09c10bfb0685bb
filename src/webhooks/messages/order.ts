/** The `order` incoming message. */
import * as z from '../../core/zod.js';
import { messageBase, optionalString, requiredString } from '../wire.js';

/**
 * One line of an order. The product and quantity say what was ordered, so they are required; price and currency
 * describe it and are absent from some deliveries (look them up in the catalog then).
 */
export const orderItemSchema = z.looseObject({
  product_retailer_id: requiredString,
  quantity: z.number(),
  item_price: z.optional(z.number()),
  /** ISO 4217 code. */
  currency: optionalString,
});
export interface OrderItem extends z.output<typeof orderItemSchema> {}

export const orderMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('order'),
  order: z.looseObject({
    catalog_id: optionalString,
    text: optionalString,
    product_items: z.array(orderItemSchema),
  }),
});

export interface OrderMessage extends z.output<typeof orderMessageSchema> {}
