import type { z } from 'zod';
import { ErrorBody } from '@outpost/contracts';

export const json = <S extends z.ZodType>(schema: S, description = 'OK') => ({
  description,
  content: { 'application/json': { schema } },
});

export const body = <S extends z.ZodType>(schema: S) => ({
  body: { required: true, content: { 'application/json': { schema } } },
});

export const authErrors = {
  401: json(ErrorBody, 'X-API-Key header missing'),
  403: json(ErrorBody, 'X-API-Key wrong'),
};

export const security = [{ ApiKey: [] }];
export { ErrorBody };
