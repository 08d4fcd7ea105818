import { OpenAPIHono, z } from '@hono/zod-openapi';
import { USER_ROLES } from '../../../../drizzle/schema';
import type { AppEnv } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, NO_STORE_HEADERS, ok, secretJsonContent, successBody } from '../../../platform/http/envelope';
import { clientIp, enforceRateLimits } from '../../../platform/http/rate-limits';
import { defineRoute } from '../../../platform/http/route';
import { SIGN_IN_ACCOUNT, SIGN_IN_ATTEMPTS } from '../../../platform/rate-limit/policy';
import { safeString } from '../../../platform/values/strings';
import { signIn } from './service';

const signInBody = z
  .object({
    // Not checked for email shape: a malformed address is just another failed sign-in (401).
    email: safeString().min(1).max(320).openapi({ example: 'owner@demo-clinic.test' }),
    password: safeString().min(1).max(1024).openapi({ example: 'demo-password' }),
  })
  .openapi('SignInRequest');

const signInData = z
  .object({
    token: z.string().openapi({ description: 'Brand-admin JWT; send as `Authorization: Bearer <token>`.' }),
    expiresAt: z.string().datetime().openapi({ description: 'Tokens last 12 hours.' }),
    user: z.object({
      id: z.string().uuid(),
      clinicId: z.string().uuid(),
      email: z.string(),
      firstName: z.string(),
      lastName: z.string(),
      role: z.enum(USER_ROLES),
    }),
  })
  .openapi('SignInResult');

const signInRoute = defineRoute(
  { auth: 'public' },
  {
    method: 'post',
    path: '/auth/signin',
    operationId: 'signIn',
    tags: ['Auth and key management'],
    summary: 'Sign in as a brand admin and get a token for key management',
    request: { body: jsonBody(signInBody) },
    responses: {
      200: secretJsonContent(successBody(signInData), 'Signed in (Cache-Control: no-store: the body holds the token)'),
      401: jsonContent(
        errorBody,
        'UNAUTHORIZED: unknown email, wrong password, or an inactive user or clinic (the body never says which).',
      ),
    },
  },
);

export const authRoutes = new OpenAPIHono<AppEnv>().openapi(signInRoute, async (c) => {
  const { email, password } = c.req.valid('json');
  const account = email.trim().toLowerCase();
  // Per address and account, and per account from any address; the headers show the tighter one.
  await enforceRateLimits(c, [SIGN_IN_ATTEMPTS], `sign-in:${clientIp(c)}:${account}`);
  await enforceRateLimits(c, [SIGN_IN_ACCOUNT], `sign-in-account:${account}`);
  return c.json(ok(await signIn(c.get('services'), email, password), 'Signed in'), 200, NO_STORE_HEADERS);
});
