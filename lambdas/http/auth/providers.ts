/** GET /api/auth/providers: the social sign-in providers that are configured, for a sign-in page's buttons. */
import { identityProvider } from '../../runtime/identity-provider.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { socialProviderSchema } from '../../routes/schemas/auth.js';
import { definePublicHandler } from '../define-public-handler.js';

export const handler = definePublicHandler(authRoutes.authProviders, async () => ({
  body: { social: socialProviderSchema.options.filter((provider) => identityProvider().supportsSocial(provider)) },
}));
