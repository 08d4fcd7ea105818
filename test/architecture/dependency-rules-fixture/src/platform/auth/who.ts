// Breaks platform-floor-pipeline: auth importing the request pipeline.
import { pipeline } from '../http/pipeline';

export const who = pipeline;
