/** Test builder of the `order` message: see `fixtures.ts`. */
import { base, type Overrides } from '../fixture-base.js';
import type { OrderMessage } from './order.js';

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
