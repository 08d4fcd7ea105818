export * from './types';
export { DevelopmentSmsNumbers, developmentNumberSid, developmentTollFreeNumber } from './development';
export { TWILIO_CANDIDATES, TwilioSmsNumbers } from './twilio';
