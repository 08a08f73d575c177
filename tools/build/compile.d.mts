/** The compiled tree for the sources as they are now, built if missing; returns its folder (the repository's layout: src/, data/). */
export function compile(): Promise<string>;
