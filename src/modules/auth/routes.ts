import { OpenAPIHono, z } from '@hono/zod-openapi';
import { USER_ROLES } from '../../../drizzle/schema';
import type { AppEnv } from '../../platform/context';
import { jsonBody, jsonContent, ok, successBody } from '../../platform/http/envelope';
import { defineRoute } from '../../platform/http/route';
import { clientIp, enforceRateLimits } from '../../platform/rate-limit/enforce';
import { SIGN_IN_ATTEMPTS } from '../../platform/rate-limit/policy';
import { signIn } from './service';

const signInBody = z
  .object({
    // Not checked for email shape: a malformed address is just another failed sign-in (401).
    email: z.string().min(1).max(320).openapi({ example: 'owner@demo-clinic.test' }),
    password: z.string().min(1).max(1024).openapi({ example: 'demo-password' }),
  })
  .openapi('SignInRequest');

const signInData = z
  .object({
    token: z.string().openapi({ description: 'Brand-admin JWT; send as Authorization: Bearer <token>.' }),
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

const signInRoute = defineRoute({ auth: 'public' }, {
  method: 'post',
  path: '/auth/signin',
  tags: ['Auth and key management'],
  summary: 'Sign in as a brand admin and get a token for key management',
  request: { body: jsonBody(signInBody) },
  responses: { 200: jsonContent(successBody(signInData), 'Signed in') },
});

export const authRoutes = new OpenAPIHono<AppEnv>().openapi(signInRoute, async (c) => {
  const { email, password } = c.req.valid('json');
  await enforceRateLimits(c, [SIGN_IN_ATTEMPTS], `sign-in:${clientIp(c)}:${email.trim().toLowerCase()}`);
  return c.json(ok(await signIn(c.get('services'), email, password), 'Signed in'), 200);
});
