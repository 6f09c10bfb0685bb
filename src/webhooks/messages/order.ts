/** The `order` incoming message. */
import * as z from '../../core/zod.js';
import { base, type Overrides } from '../fixture-base.js';
import { messageBase } from '../wire.js';

/** One line of an order. */
export const orderItemSchema = z.looseObject({
  product_retailer_id: z.string(),
  quantity: z.number(),
  item_price: z.number(),
  /** ISO 4217 code. */
  currency: z.string(),
});
export interface OrderItem extends z.infer<typeof orderItemSchema> {}

export const orderMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('order'),
  order: z.looseObject({
    catalog_id: z.string(),
    text: z.optional(z.string()),
    product_items: z.array(orderItemSchema),
  }),
});

export interface OrderMessage extends z.infer<typeof orderMessageSchema> {}

/** An `order` message with two product lines. */
export function orderMessage(overrides: Overrides<OrderMessage> = {}): OrderMessage {
  return {
    ...base(overrides),
    order: {
      catalog_id: 'catalog_1',
      text: 'Please deliver tomorrow',
      product_items: [
        { product_retailer_id: 'sku_1', quantity: 2, item_price: 9.5, currency: 'USD' },
        { product_retailer_id: 'sku_2', quantity: 1, item_price: 20, currency: 'USD' },
      ],
    },
    ...overrides,
    type: 'order',
  };
}
