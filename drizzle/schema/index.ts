// The whole domain schema, one file per area. Later areas add their files here.

export * from './affiliates';
export * from './api-keys';
export * from './audit';
export * from './catalog';
export * from './clinics';
export * from './coupons';
export * from './crm';
export * from './messaging';
export * from './orders';
export * from './organization';
export * from './patients';
export * from './products';
export * from './programs';
export * from './rollups';
export * from './storefront';
export * from './users';
export * from './webhooks';
