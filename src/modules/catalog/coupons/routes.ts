import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody, pageQuery } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { idParam } from '../../../platform/values/ids';
import {
  coupon,
  couponValidation,
  createCouponBody,
  deletedCoupon,
  couponPerformance as performanceSchema,
  updateCouponBody,
  validateCouponQuery,
} from './schemas';
import { couponPerformance, createCoupon, deleteCoupon, getCoupon, listCoupons, updateCoupon, validateCoupon } from './service';

const tags = ['Coupons'];
const read = { auth: 'key', scope: 'read', aiConnector: true } as const;
const write = { auth: 'key', scope: 'write' } as const;
const codeTaken = jsonContent(errorBody, 'CONFLICT: another coupon of the clinic has this code (ignoring case)');

const list = defineRoute(read, {
  method: 'get',
  path: '/api/v1/coupons',
  operationId: 'listCoupons',
  tags,
  summary: "List the clinic's coupons, newest first",
  request: { query: pageQuery },
  responses: { 200: jsonContent(pagedBody(coupon), 'Coupons (deleted ones are not listed)') },
});

/** The values a coupon's audit row keeps (docs/audit-log.md): its terms; the code and description are text, named only. */
const COUPON_SETTINGS = [
  'discountType',
  'discountValue',
  'startsAt',
  'expiresAt',
  'isActive',
  'scope',
  'overMarginBehavior',
  'maxRedemptions',
  'perCustomerLimit',
  'minOrderAmount',
];

const create = defineRoute(write, {
  method: 'post',
  path: '/api/v1/coupons',
  operationId: 'createCoupon',
  recordedValues: COUPON_SETTINGS,
  tags,
  summary: 'Create a coupon',
  request: { body: jsonBody(createCouponBody) },
  responses: { 201: jsonContent(successBody(coupon), 'Created'), 409: codeTaken },
});

const get = defineRoute(read, {
  method: 'get',
  path: '/api/v1/coupons/{id}',
  operationId: 'getCoupon',
  tags,
  summary: 'Get a coupon',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(coupon), 'The coupon') },
});

const update = defineRoute(write, {
  method: 'put',
  path: '/api/v1/coupons/{id}',
  operationId: 'updateCoupon',
  recordedValues: COUPON_SETTINGS,
  tags,
  summary: 'Update a coupon (only the fields sent change; the result is validated as a whole)',
  request: { params: idParam(), body: jsonBody(updateCouponBody) },
  responses: { 200: jsonContent(successBody(coupon), 'Updated'), 409: codeTaken },
});

const remove = defineRoute(write, {
  method: 'delete',
  path: '/api/v1/coupons/{id}',
  operationId: 'deleteCoupon',
  tags,
  summary: 'Delete a coupon (its redemption history stays; its code becomes free)',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(deletedCoupon), 'Deleted') },
});

const performance = defineRoute(read, {
  method: 'get',
  path: '/api/v1/coupons/{id}/performance',
  operationId: 'getCouponPerformance',
  tags,
  summary: 'Redemptions, discount and order totals of a coupon, in total and by month',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(performanceSchema), 'Performance') },
});

const validate = defineRoute(
  { auth: 'key', scope: 'read' },
  {
    method: 'get',
    path: '/api/v1/billing/validate-coupon',
    operationId: 'validateCoupon',
    tags: ['Billing and payout account'],
    summary: 'Whether a coupon code can be redeemed now, and if not why',
    request: { query: validateCouponQuery },
    responses: {
      200: jsonContent(successBody(couponValidation), 'The verdict (valid true or false, with the reasons)'),
      404: jsonContent(errorBody, 'No coupon of the clinic has this code'),
    },
  },
);

export const couponRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { data, pagination } = await listCoupons(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(create, async (c) => {
    const created = await createCoupon(handlerContext(c), c.req.valid('json'));
    return c.json(ok(created, 'Coupon created'), 201);
  })
  .openapi(get, async (c) => {
    return c.json(ok(await getCoupon(handlerContext(c), c.req.valid('param').id)), 200);
  })
  .openapi(update, async (c) => {
    const updated = await updateCoupon(handlerContext(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json(ok(updated, 'Coupon updated'), 200);
  })
  .openapi(remove, async (c) => {
    return c.json(ok(await deleteCoupon(handlerContext(c), c.req.valid('param').id), 'Coupon deleted'), 200);
  })
  .openapi(performance, async (c) => {
    return c.json(ok(await couponPerformance(handlerContext(c), c.req.valid('param').id)), 200);
  })
  .openapi(validate, async (c) => {
    const result = await validateCoupon(handlerContext(c), c.req.valid('query').code);
    return c.json(ok(result, result.message), 200);
  });
