import { custom } from './custom.js';
import { github } from './github.js';
import { shopify } from './shopify.js';
import { slack } from './slack.js';
import { stripe } from './stripe.js';
import type { Provider, ProviderName } from './types.js';

/** The provider modules by name: how each verifies and signs. Verification and re-signing both read this table. */
export const providers: Record<ProviderName, Provider> = { stripe, shopify, github, slack, custom };
