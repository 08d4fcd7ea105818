// The whole domain schema, one file per area. Later areas add their files here.
export * from './clinics';
export * from './users';
export * from './api-keys';
export * from './catalog';
export * from './products';
export * from './programs';
export * from './patients';
export * from './coupons';
export * from './orders';
export * from './webhooks';
export * from './messaging';
export * from './crm';
export * from './affiliates';
export * from './storefront';
export * from './organization';
