// A label's rules (Label, ProjectLabel and Labels::BaseService, 14.x): titles and descriptions lose
// their HTML, titles and colours their surrounding white space; a colour is a hex code or a CSS
// colour name turned into one; a title is present, without commas, unique where it lives, at most
// 255 characters, and a project label's title is not one of its group's.
import type { FieldErrors } from '../../core/errors.ts';
import { rubyStrip as strip } from '../../domain/plain-text.ts';
import { BLANK, INVALID, INVALID_COLOR, TAKEN, addError, isColorCode, tooLong } from '../../domain/validation.ts';

const TITLE = /^[^,]+$/;
export const TITLE_MAX = 255;

/** The platform's table of CSS colour names (Labels::BaseService; it has no cyan nor magenta). */
const COLOR_NAMES: ReadonlyMap<string, string> = new Map(
  (
    'black:000000 silver:C0C0C0 gray:808080 white:FFFFFF maroon:800000 red:FF0000 purple:800080 fuchsia:FF00FF green:008000 lime:00FF00 ' +
    'olive:808000 yellow:FFFF00 navy:000080 blue:0000FF teal:008080 aqua:00FFFF orange:FFA500 aliceblue:F0F8FF antiquewhite:FAEBD7 ' +
    'aquamarine:7FFFD4 azure:F0FFFF beige:F5F5DC bisque:FFE4C4 blanchedalmond:FFEBCD blueviolet:8A2BE2 brown:A52A2A burlywood:DEB887 ' +
    'cadetblue:5F9EA0 chartreuse:7FFF00 chocolate:D2691E coral:FF7F50 cornflowerblue:6495ED cornsilk:FFF8DC crimson:DC143C darkblue:00008B ' +
    'darkcyan:008B8B darkgoldenrod:B8860B darkgray:A9A9A9 darkgreen:006400 darkgrey:A9A9A9 darkkhaki:BDB76B darkmagenta:8B008B ' +
    'darkolivegreen:556B2F darkorange:FF8C00 darkorchid:9932CC darkred:8B0000 darksalmon:E9967A darkseagreen:8FBC8F darkslateblue:483D8B ' +
    'darkslategray:2F4F4F darkslategrey:2F4F4F darkturquoise:00CED1 darkviolet:9400D3 deeppink:FF1493 deepskyblue:00BFFF dimgray:696969 ' +
    'dimgrey:696969 dodgerblue:1E90FF firebrick:B22222 floralwhite:FFFAF0 forestgreen:228B22 gainsboro:DCDCDC ghostwhite:F8F8FF ' +
    'gold:FFD700 goldenrod:DAA520 greenyellow:ADFF2F grey:808080 honeydew:F0FFF0 hotpink:FF69B4 indianred:CD5C5C indigo:4B0082 ' +
    'ivory:FFFFF0 khaki:F0E68C lavender:E6E6FA lavenderblush:FFF0F5 lawngreen:7CFC00 lemonchiffon:FFFACD lightblue:ADD8E6 ' +
    'lightcoral:F08080 lightcyan:E0FFFF lightgoldenrodyellow:FAFAD2 lightgray:D3D3D3 lightgreen:90EE90 lightgrey:D3D3D3 lightpink:FFB6C1 ' +
    'lightsalmon:FFA07A lightseagreen:20B2AA lightskyblue:87CEFA lightslategray:778899 lightslategrey:778899 lightsteelblue:B0C4DE ' +
    'lightyellow:FFFFE0 limegreen:32CD32 linen:FAF0E6 mediumaquamarine:66CDAA mediumblue:0000CD mediumorchid:BA55D3 mediumpurple:9370DB ' +
    'mediumseagreen:3CB371 mediumslateblue:7B68EE mediumspringgreen:00FA9A mediumturquoise:48D1CC mediumvioletred:C71585 ' +
    'midnightblue:191970 mintcream:F5FFFA mistyrose:FFE4E1 moccasin:FFE4B5 navajowhite:FFDEAD oldlace:FDF5E6 olivedrab:6B8E23 ' +
    'orangered:FF4500 orchid:DA70D6 palegoldenrod:EEE8AA palegreen:98FB98 paleturquoise:AFEEEE palevioletred:DB7093 papayawhip:FFEFD5 ' +
    'peachpuff:FFDAB9 peru:CD853F pink:FFC0CB plum:DDA0DD powderblue:B0E0E6 rosybrown:BC8F8F royalblue:4169E1 saddlebrown:8B4513 ' +
    'salmon:FA8072 sandybrown:F4A460 seagreen:2E8B57 seashell:FFF5EE sienna:A0522D skyblue:87CEEB slateblue:6A5ACD slategray:708090 ' +
    'slategrey:708090 snow:FFFAFA springgreen:00FF7F steelblue:4682B4 tan:D2B48C thistle:D8BFD8 tomato:FF6347 turquoise:40E0D0 ' +
    'violet:EE82EE wheat:F5DEB3 whitesmoke:F5F5F5 yellowgreen:9ACD32 rebeccapurple:663399'
  )
    .split(' ')
    .map((pair) => {
      const [name, hex] = pair.split(':');
      return [name, `#${hex}`] as const;
    }),
);

/** A CSS colour name as its hex code; anything else as given (a hex code, or something invalid). */
export function colorFromName(color: string): string {
  const name = strip(color).toLowerCase();
  if (name.startsWith('#')) return color;
  return COLOR_NAMES.get(name) ?? color;
}


export interface LabelFields {
  title: string | null;
  color: string;
}

export interface TitleConflicts {
  /** Another label of the same project or group has the title. */
  taken: boolean;
  /** A project label's title is one of its group's labels': that group's name. */
  groupName: string | null;
}

/** Stored form of the title and colour, as the model strips them before validation. */
export function normalizedFields(fields: LabelFields): LabelFields {
  return { title: fields.title === null ? null : strip(fields.title), color: strip(fields.color) };
}

/** The model's failures, colour first, as the platform runs its validators. */
export function labelErrors(fields: LabelFields, conflicts: TitleConflicts): FieldErrors {
  const errors: FieldErrors = {};
  if (!isColorCode(fields.color)) addError(errors, 'color', INVALID_COLOR);
  const title = fields.title ?? '';
  if (title === '') addError(errors, 'title', BLANK);
  if (!TITLE.test(title)) addError(errors, 'title', INVALID);
  if (conflicts.taken) addError(errors, 'title', TAKEN);
  if ([...title].length > TITLE_MAX) addError(errors, 'title', tooLong(TITLE_MAX));
  if (conflicts.groupName !== null) addError(errors, 'title', `already exists at group level for ${conflicts.groupName}. Please choose another one.`);
  return errors;
}

export const PRIORITY_MINIMUM = 0;
