import { z } from '@hono/zod-openapi';
import { plainLine, plainText, safeString } from '../../../platform/values/strings';
import { imageFileField, storedImage } from '../../catalog';
import { isHttpsUrl, MAX_URL_LENGTH } from '../page-builder/links';

/**
 * The social networks socialMediaLinks may name, each with the hosts its links must be on (the host
 * itself or a subdomain of it, e.g. www.instagram.com). docs/custom-website.md.
 */
export const SOCIAL_NETWORKS = {
  facebook: ['facebook.com', 'fb.com', 'fb.me'],
  instagram: ['instagram.com'],
  x: ['x.com', 'twitter.com'],
  tiktok: ['tiktok.com'],
  youtube: ['youtube.com', 'youtu.be'],
  linkedin: ['linkedin.com'],
  pinterest: ['pinterest.com', 'pin.it'],
  threads: ['threads.net', 'threads.com'],
} as const;
export type SocialNetwork = keyof typeof SOCIAL_NETWORKS;
export const SOCIAL_NETWORK_NAMES = Object.keys(SOCIAL_NETWORKS) as SocialNetwork[];

/** What a clinic that never saved its website gets, and what the resets go back to. */
export const WEBSITE_DEFAULTS = {
  isActive: false,
  heroTitle: null as string | null,
  heroSubtitle: null as string | null,
  heroPrimaryButtonText: 'Get started' as string | null,
  primaryColor: '#2563EB',
  footerColor: '#111827',
  footerText: null as string | null,
  socialMediaLinks: {} as Partial<Record<SocialNetwork, string>>,
};

/** #RGB or #RRGGBB, stored upper-case. */
export const HEX_COLOR = /^#(?:[0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$/;
const color = (what: string, fallback: string) =>
  safeString()
    .trim()
    .regex(HEX_COLOR, 'must be a hex color: #RGB or #RRGGBB')
    .transform((value) => value.toUpperCase())
    .openapi({ description: `${what}: a hex color, #RGB or #RRGGBB (default ${fallback}).`, example: fallback });

const onNetwork = (network: SocialNetwork, url: string) => {
  const host = new URL(url).hostname.toLowerCase();
  return SOCIAL_NETWORKS[network].some((allowed) => host === allowed || host.endsWith(`.${allowed}`));
};

const socialLink = (network: SocialNetwork) =>
  safeString()
    .trim()
    .min(1)
    .max(MAX_URL_LENGTH)
    .refine(isHttpsUrl, { message: 'must be an absolute https:// URL' })
    .refine((url) => !isHttpsUrl(url) || onNetwork(network, url), {
      message: `must be a link on ${SOCIAL_NETWORKS[network].join(', ')}`,
    })
    .openapi({ description: `An https URL on ${SOCIAL_NETWORKS[network].join(' or ')} (or a subdomain).` });

export const socialMediaLinksInput = z
  .object(
    Object.fromEntries(SOCIAL_NETWORK_NAMES.map((n) => [n, socialLink(n).optional()])) as Record<
      SocialNetwork,
      z.ZodOptional<ReturnType<typeof socialLink>>
    >,
  )
  .strict()
  .openapi('SocialMediaLinksInput', {
    description: `Network name -> https URL. Allowed names: ${SOCIAL_NETWORK_NAMES.join(', ')} (any other name answers 400). Replaces the stored links as a whole; {} clears them.`,
    example: { instagram: 'https://www.instagram.com/democlinic', facebook: 'https://www.facebook.com/democlinic' },
  });

export const saveWebsiteBody = z
  .object({
    isActive: z.boolean().openapi({ description: 'Whether the website is live.' }),
    heroTitle: plainLine()
      .trim()
      .max(120)
      .nullable()
      .openapi({ description: 'Up to 120 characters of plain text (no HTML markup); null: none.', example: 'Feel like yourself again' }),
    heroSubtitle: plainText().trim().max(300).nullable().openapi({ description: 'Up to 300 characters of plain text; null: none.' }),
    heroPrimaryButtonText: plainLine().trim().min(1).max(40).nullable().openapi({
      description: 'The hero\'s button, 1-40 characters of plain text; null: no button (default "Get started").',
      example: 'Start your visit',
    }),
    primaryColor: color('Buttons and links', WEBSITE_DEFAULTS.primaryColor),
    footerColor: color('Footer background', WEBSITE_DEFAULTS.footerColor),
    footerText: plainText()
      .trim()
      .max(500)
      .nullable()
      .openapi({ description: 'Up to 500 characters of plain text; null: none (default).' }),
    socialMediaLinks: socialMediaLinksInput,
  })
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'must contain at least one field' })
  .openapi('SaveCustomWebsiteRequest', {
    description:
      'Creates the settings on the first save (fields not sent take their defaults) and afterwards changes only the fields sent.',
  });
export type SaveWebsiteBody = z.infer<typeof saveWebsiteBody>;

export const toggleActiveBody = z
  .object({ isActive: z.boolean().openapi({ description: 'true: the website is live; false: taken offline.' }) })
  .strict()
  .openapi('ToggleCustomWebsiteRequest');

export const socialMediaLinks = z
  .object(
    Object.fromEntries(SOCIAL_NETWORK_NAMES.map((n) => [n, z.string().optional()])) as Record<SocialNetwork, z.ZodOptional<z.ZodString>>,
  )
  .openapi('SocialMediaLinks', { description: 'Network name -> https URL; only the networks set are present.' });

export const customWebsite = z
  .object({
    isActive: z.boolean(),
    heroTitle: z.string().nullable(),
    heroSubtitle: z.string().nullable(),
    heroPrimaryButtonText: z.string().nullable(),
    primaryColor: z.string().openapi({ example: '#2563EB' }),
    footerColor: z.string().openapi({ example: '#111827' }),
    footerText: z.string().nullable(),
    socialMediaLinks,
    logoUrl: z.string().nullable().openapi({
      description: 'Where the logo is stored and served (also streamed by GET /api/v1/custom-website/logo-proxy); null: no logo.',
    }),
    heroImageUrl: z.string().nullable().openapi({ description: "The hero image's url; null: none." }),
    isSaved: z.boolean().openapi({ description: 'false: the clinic never saved its website and these are the defaults.' }),
    updatedAt: z.string().datetime().nullable().openapi({ description: 'Last change; null when never saved.' }),
  })
  .openapi('CustomWebsite');
export type CustomWebsite = z.infer<typeof customWebsite>;

export const logoForm = z
  .object({ logo: imageFileField('logo', 'The logo') })
  .strict()
  .openapi('CustomWebsiteLogoForm');
export const heroForm = z
  .object({ heroImage: imageFileField('heroImage', 'The hero image') })
  .strict()
  .openapi('CustomWebsiteHeroForm');

export const logoResult = z
  .object({ logoUrl: z.string().openapi({ description: "The website's logoUrl now." }), upload: storedImage })
  .openapi('CustomWebsiteLogoResult');
export const heroResult = z
  .object({ heroImageUrl: z.string().openapi({ description: "The website's heroImageUrl now." }), upload: storedImage })
  .openapi('CustomWebsiteHeroResult');
