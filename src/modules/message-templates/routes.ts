import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../platform/context';

// Being built (see the area's issue); mounted from src/app.ts.
export const messageTemplateRoutes = new OpenAPIHono<AppEnv>();
