/** `color-name` ships no types: CSS color names (lower-case) to `[r, g, b]`. */
declare module 'color-name' {
  const colors: Record<string, [number, number, number]>;
  export default colors;
}
