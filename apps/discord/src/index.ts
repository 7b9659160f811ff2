/** `@keel/discord`: the Discord front door (in progress). */
export {};
