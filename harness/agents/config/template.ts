// The prompt templates' language, a small subset of Mustache: `{{name}}` inserts a value,
// `{{#name}}...{{/name}}` keeps its text when the value is true (or non-empty), `{{^name}}...{{/name}}`
// when it is not (a section may not hold another of the same name). Nothing is escaped: prompts are text. A template that names a value its prompt
// does not have is refused when the configuration is loaded, not when an agent starts.

export type TemplateValues = Readonly<Record<string, string | number | boolean>>;

const SECTION = /\{\{([#^])(\w+)\}\}([\s\S]*?)\{\{\/\2\}\}/;
const TAG = /\{\{([#^/]?)\s*([^}]*?)\s*\}\}/g;

export class Template {
  /**
   * @param name what the template is, for errors (`coop_template in agents.json`)
   * @param names the values its prompt has
   */
  constructor(
    readonly text: string,
    name: string,
    names: readonly string[],
  ) {
    for (const match of text.matchAll(TAG)) {
      if (!/^\w+$/.test(match[2]!) || !names.includes(match[2]!)) {
        throw new Error(`${name}: unknown value {{${match[1]}${match[2]}}}; this template can use ${names.map((n) => `{{${n}}}`).join(', ')}`);
      }
    }
    let rest = text;
    while (SECTION.test(rest)) rest = rest.replace(SECTION, '');
    const open = /\{\{[#^/](\w+)\}\}/.exec(rest);
    if (open) throw new Error(`${name}: the section {{…${open[1]}}} is not closed, or closed twice`);
  }

  render(values: TemplateValues): string {
    let text = this.text;
    // Leftmost section first; the text it keeps may hold other sections, handled in later turns.
    for (let match = SECTION.exec(text); match; match = SECTION.exec(text)) {
      const [whole, kind, key, inner] = match;
      const on = Boolean(values[key!]);
      text = text.slice(0, match.index) + ((kind === '#') === on ? inner! : '') + text.slice(match.index + whole.length);
    }
    return text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => String(values[key] ?? ''));
  }
}
