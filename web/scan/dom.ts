/** The page's small DOM helpers. */

/** The element with this id; the page's markup always has it. */
export const byId = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
};

/** Shows the template's content as the page's main part (what is not shown is not in the page). */
export function mount(templateId: string): void {
  const template = byId<HTMLTemplateElement>(templateId);
  byId('main').replaceChildren(template.content.cloneNode(true));
}

/** An error's message, or the thrown value as text. */
export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A paragraph that screen readers announce at once. */
export function alertParagraph(text: string): HTMLParagraphElement {
  const p = document.createElement('p');
  p.setAttribute('role', 'alert');
  p.className = 'message';
  p.textContent = text;
  return p;
}
