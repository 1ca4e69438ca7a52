/**
 * The article's comparison scopes, apart from the seed pipeline's declaration (seed.ts) so that the comparison's
 * masks read them without loading the declaration parser.
 */

/** [D] The article's scopes: "inner 400 m", "central 1,024×1,024 m" (metres about the domain centre). */
export const ARTICLE_SCOPES = Object.freeze({ innerRadius: 400, windowSize: 1024 });
