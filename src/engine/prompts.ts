const PLACEHOLDER = /\{\{\s*([a-z_]+)\s*\}\}/g;

/** Values for the prompt placeholders (seed names). */
export interface PromptValues {
  prompt: string;
  previous_envelope: string;
  context_handoff_dir: string;
  adw_id: string;
  output_schema: string;
}

/**
 * Substitutes `{{name}}` placeholders in one pass: text inside a substituted value is never
 * substituted again. Unknown placeholders are left as written.
 */
export function renderPrompt(template: string, values: PromptValues): string {
  return template.replace(PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(values, name) ? values[name as keyof PromptValues] : whole,
  );
}
