// Crafted merge inputs: a base file and two agents' versions of it (also used by bench/merge.ts
// when no feature pool is available).

export interface CraftedCase {
  name: string;
  path: string;
  base: string;
  ours: string;
  theirs: string;
  /** A correct resolution of the whole file, for the fake model. */
  resolved: string;
}

/** Agent 1 reformats to Allman braces; agent 2 changes a condition on a reformatted line. */
export const bracesCase: CraftedCase = {
  name: 'K&R vs Allman braces',
  path: 'src/clamp.js',
  base: `// Numeric helpers.

export function clamp(value, low, high) {
  if (value < low) {
    return low;
  }
  if (value > high) {
    return high;
  }
  return value;
}

export function double(x) {
  return x * 2;
}
`,
  ours: `// Numeric helpers.

export function clamp(value, low, high)
{
  if (value < low)
  {
    return low;
  }
  if (value > high)
  {
    return high;
  }
  return value;
}

export function double(x) {
  return x * 2;
}
`,
  theirs: `// Numeric helpers.

export function clamp(value, low, high) {
  if (value <= low) {
    return low;
  }
  if (value > high) {
    return high;
  }
  return value;
}

export function double(x) {
  return x * 2;
}
`,
  resolved: `// Numeric helpers.

export function clamp(value, low, high)
{
  if (value <= low)
  {
    return low;
  }
  if (value > high)
  {
    return high;
  }
  return value;
}

export function double(x) {
  return x * 2;
}
`,
};

const tableHead = `"""Plain-text tables."""

import sys


`;
const tableTail = `    """Render rows as a table."""
    if headers is None:
        headers = []
    lines = [" | ".join(headers)]
    for row in rows:
        lines.append(" | ".join(str(cell) for cell in row))
    return "\\n".join(lines)


def print_table(rows):
    sys.stdout.write(format_table(rows) + "\\n")
`;

/** Both agents add a parameter to the same signature. */
export const signatureCase: CraftedCase = {
  name: 'both add a parameter to one signature',
  path: 'tabulate/table.py',
  base: `${tableHead}def format_table(rows, headers=None):\n${tableTail}`,
  ours: `${tableHead}def format_table(rows, headers=None, align=None):\n${tableTail}`,
  theirs: `${tableHead}def format_table(rows, headers=None, padding=1):\n${tableTail}`,
  resolved: `${tableHead}def format_table(rows, headers=None, align=None, padding=1):\n${tableTail}`,
};

const importsTail = `
from .cells import pad


def render(value):
    return pad(str(value))
`;

/** Both agents add an import at the same place. */
export const importsCase: CraftedCase = {
  name: 'both add imports',
  path: 'tabulate/render.py',
  base: `import os\nimport sys\n${importsTail}`,
  ours: `import os\nimport sys\nimport json\n${importsTail}`,
  theirs: `import os\nimport sys\nimport logging\n${importsTail}`,
  resolved: `import os\nimport sys\nimport json\nimport logging\n${importsTail}`,
};

const settingsHead = `# Settings.\nHOST = "localhost"\nPORT = 8080\n`;
const settingsTail = `RETRIES = 3\nVERBOSE = False\n`;

/** Both agents change the same line to different values: a true conflict. */
export const overlapCase: CraftedCase = {
  name: 'overlapping edits that truly conflict',
  path: 'settings.py',
  base: `${settingsHead}TIMEOUT = 30\n${settingsTail}`,
  ours: `${settingsHead}TIMEOUT = 60\n${settingsTail}`,
  theirs: `${settingsHead}TIMEOUT = 10\n${settingsTail}`,
  resolved: `${settingsHead}TIMEOUT = 60\n${settingsTail}`,
};

export const craftedCases = [bracesCase, signatureCase, importsCase, overlapCase];
