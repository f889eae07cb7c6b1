// Model ids as providers write them.

/** `model` without a date suffix (claude-sonnet-4-5-20250929, gpt-4o-2024-08-06): the id tables list. */
export function undatedModelId(model: string): string {
  return model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '');
}
