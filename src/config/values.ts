/** A variable's value trimmed, or undefined when it is unset or blank (a blank secret is an unset one). */
export const present = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);
