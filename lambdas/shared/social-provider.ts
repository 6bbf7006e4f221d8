/** Social sign-in providers of SPEC.md §4.1. */
export type SocialProvider = 'google' | 'github';
