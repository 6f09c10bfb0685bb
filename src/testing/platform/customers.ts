import { z } from 'zod';
import { uuidSchema } from '../../platform/fields.js';
import { type Answer, detail, ok, parseBody, type Route, type RouteContext } from './answer.js';
import { customFieldValues } from './custom-fields.js';
import { CUSTOMER_FIELDS } from './state.js';
import type { World } from './world.js';

const customerBody = z.looseObject({ uuid: uuidSchema, customer: z.record(z.string(), z.unknown()) });

/** `POST /v2/customers/`: customer fields, or customer custom fields, in separate requests. */
export function customerRoutes(world: World): Route[] {
  const updateCustomer = ({ body }: RouteContext): Answer => {
    const b = parseBody(customerBody, body);
    if (!world.customerExists(b.uuid)) throw detail(400, 'Customer not found.');
    const uuid = b.uuid.toLowerCase();
    const current = world.state.customers.get(uuid) ?? { fields: {}, customFields: {} };
    const { custom_fields: wrapped, ...plain } = b.customer;
    if (wrapped !== undefined) {
      if (Object.keys(plain).length > 0) {
        throw detail(400, 'Send customer fields and customer custom fields in separate requests.');
      }
      const fields = parseBody(z.record(z.string(), z.unknown()), wrapped, 'customer.custom_fields');
      const values = customFieldValues(fields, world.options.customerCustomFields);
      world.state.customers.set(uuid, { ...current, customFields: { ...current.customFields, ...values } });
      return ok('Customer custom fields updated.');
    }
    const entries = Object.entries(plain);
    if (entries.length === 0) throw detail(400, 'customer: no field to update.');
    const fields = { ...current.fields };
    for (const [key, value] of entries) {
      const name = CUSTOMER_FIELDS.find((f) => f === key);
      if (name === undefined) throw detail(400, `customer.${key}: unknown field.`);
      if (typeof value !== 'string' && value !== null)
        throw detail(400, `customer.${key}: must be a string.`);
      fields[name] = value;
    }
    world.state.customers.set(uuid, { ...current, fields });
    for (const { customer } of world.state.conversationRecords) {
      if (!customer || customer.uuid.toLowerCase() !== uuid) continue;
      for (const f of ['name', 'email', 'crm'] as const) if (f in fields) customer[f] = fields[f];
    }
    return ok('Customer updated.');
  };

  return [{ host: 'platform', method: 'POST', path: '/v2/customers/', handle: updateCustomer }];
}
