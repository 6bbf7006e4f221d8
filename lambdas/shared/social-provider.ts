/** Social sign-in providers of docs/API.md §4.1. */
export type SocialProvider = 'google' | 'github';
