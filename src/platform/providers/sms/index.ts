export { DevelopmentSmsNumbers, developmentNumberSid, developmentTollFreeNumber } from './development';
export { TWILIO_CANDIDATES, TwilioSmsNumbers } from './twilio';
export * from './types';
