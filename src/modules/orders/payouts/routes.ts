import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody, pageQuery } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { getBalance, getDisputes } from './balance';
import { balanceBody, disputesBody, payoutRow, withdrawBody, withdrawResult } from './schemas';
import { listPayouts, withdraw } from './service';

const tags = ['Payouts and refunds'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;

const list = defineRoute(read, {
  method: 'get',
  path: '/api/v1/payouts',
  operationId: 'listPayouts',
  tags,
  summary: "The clinic's payouts (order transfers and withdrawals), newest first, paged",
  description: 'The spec answers an array; this API pages it (page, limit; pagination beside data). docs/payouts-and-refunds.md.',
  request: { query: pageQuery },
  responses: { 200: jsonContent(pagedBody(payoutRow), 'Payout rows, newest first') },
});

const balance = defineRoute(read, {
  method: 'get',
  path: '/api/v1/payouts/balance',
  operationId: 'getPayoutBalance',
  tags,
  summary: "The clinic's balance, reserve and recent ledger activity (sums over the ledger)",
  responses: { 200: jsonContent(successBody(balanceBody), 'Balance') },
});

const disputes = defineRoute(read, {
  method: 'get',
  path: '/api/v1/payouts/disputes',
  operationId: 'getPayoutDisputes',
  tags,
  summary: 'Dispute summary (counts, amount at risk) and the latest 100 disputes',
  responses: { 200: jsonContent(successBody(disputesBody), 'Dispute summary and history') },
});

const withdrawRoute = defineRoute(write, {
  method: 'post',
  path: '/api/v1/payouts/withdraw',
  operationId: 'withdrawPayout',
  recordedValues: ['amount'],
  tags,
  summary: 'Withdraw part of the withdrawable balance to the connected payout account',
  description:
    'amount in US dollars, > 0, at most the withdrawable balance (400 INSUFFICIENT_BALANCE otherwise). One transaction with the clinic row locked: concurrent withdrawals cannot overdraw. docs/payouts-and-refunds.md.',
  request: { body: jsonBody(withdrawBody) },
  responses: {
    201: jsonContent(successBody(withdrawResult), 'The withdrawal (a payout of type withdrawal) and what is left to withdraw'),
    409: jsonContent(errorBody, 'PAYOUT_ACCOUNT_NOT_CONNECTED: no payout account to transfer to'),
    502: jsonContent(errorBody, 'PAYMENT_PROCESSOR_ERROR: the processor refused the transfer; nothing was stored'),
    503: jsonContent(errorBody, 'PAYMENT_PROCESSOR_UNAVAILABLE (Retry-After) or the database is unavailable; nothing was stored'),
  },
});

export const payoutRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { data, pagination } = await listPayouts(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(balance, async (c) => {
    return c.json(ok(await getBalance(handlerContext(c))), 200);
  })
  .openapi(disputes, async (c) => {
    return c.json(ok(await getDisputes(handlerContext(c))), 200);
  })
  .openapi(withdrawRoute, async (c) => {
    const result = await withdraw(handlerContext(c), c.req.valid('json').amount);
    return c.json(ok(result, 'Withdrawal sent'), 201);
  });
