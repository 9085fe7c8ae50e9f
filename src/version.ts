// The API version Quarry reports. Clients compare it to decide which features to use; Quarry
// follows the REST API v4 of release 14.x, which this number reflects.
import { readFileSync } from 'node:fs';

export const REPORTED_VERSION = '14.4.0';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
export const PRODUCT_VERSION: string = pkg.version;
export const PRODUCT_REVISION = `quarry-${pkg.version}`;
