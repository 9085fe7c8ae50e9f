// Custom attributes of a user: key/value pairs only administrators read and write.
import { type Static, Type } from '@sinclair/typebox';
import { Params } from '../../core/params.ts';
import { CustomAttributeEntity } from './users.schemas.ts';

export { CustomAttributeEntity };
export type CustomAttribute = Static<typeof CustomAttributeEntity>;

export const CustomAttributeParams = Params({ id: Type.Integer(), key: Type.String() });
export type CustomAttributeParams = Static<typeof CustomAttributeParams>;

export const SetCustomAttributeBody = Params({ value: Type.String() });
export type SetCustomAttributeBody = Static<typeof SetCustomAttributeBody>;
