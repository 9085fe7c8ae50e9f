// Application rows as the Applications API presents them.
import type { OauthApplicationRow } from '../../db/schema.ts';
import type { Application, ApplicationWithSecret } from './applications.schemas.ts';

export function presentApplication(row: OauthApplicationRow): Application {
  return { id: row.id, application_id: row.uid, application_name: row.name, callback_url: row.redirect_uri, confidential: row.confidential };
}

export function presentApplicationWithSecret(row: OauthApplicationRow, secret: string): ApplicationWithSecret {
  return { ...presentApplication(row), secret };
}
