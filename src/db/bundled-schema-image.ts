// The schema image the bundled server carries (src/db/schema-image.ts): null in the sources, which
// migrate a new database step by step; the bundle's build replaces this file with the image of
// the migrations it bundles (src/bundle/build.ts).
import type { SchemaImage } from './schema-image.ts';

export const BUNDLED_SCHEMA_IMAGE: SchemaImage | null = null;
