// Custom attributes: key/value pairs on users, groups and projects that only administrators read
// and write (GET/PUT/DELETE /<subject>/:id/custom_attributes[/:key]).
import { type Static, Type } from '@sinclair/typebox';
import { Params } from '../../core/params.ts';
import { Entity } from '../../core/schema.ts';

export const CustomAttributeEntity = Entity({ key: Type.String(), value: Type.String() });
export type CustomAttribute = Static<typeof CustomAttributeEntity>;

export const SetCustomAttributeBody = Params({ value: Type.String() });
export type SetCustomAttributeBody = Static<typeof SetCustomAttributeBody>;
