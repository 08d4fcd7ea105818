// The external CRMs a clinic can connect (docs/crm-connection.md): how each authenticates and where
// its OAuth consent screen is.

export const CRM_PROVIDERS = ['hubspot', 'salesforce', 'pipedrive', 'zoho'] as const;
export type CrmProvider = (typeof CRM_PROVIDERS)[number];

interface ProviderInfo {
  label: string;
  /** Whether POST /crm/connect/apikey accepts it (HubSpot private-app tokens, Pipedrive API tokens). */
  apiKey: boolean;
  /** The provider's OAuth 2.0 authorization endpoint and the scopes asked for. */
  authorizeEndpoint: string;
  scopes: string[];
  /** Extra authorize parameters the provider needs to issue a refresh token. */
  extraParams?: Record<string, string>;
}

export const PROVIDERS: Record<CrmProvider, ProviderInfo> = {
  hubspot: {
    label: 'HubSpot',
    apiKey: true,
    authorizeEndpoint: 'https://app.hubspot.com/oauth/authorize',
    scopes: ['crm.objects.contacts.read', 'crm.objects.contacts.write'],
  },
  salesforce: {
    label: 'Salesforce',
    apiKey: false,
    authorizeEndpoint: 'https://login.salesforce.com/services/oauth2/authorize',
    scopes: ['api', 'refresh_token'],
  },
  pipedrive: {
    label: 'Pipedrive',
    apiKey: true,
    authorizeEndpoint: 'https://oauth.pipedrive.com/oauth/authorize',
    scopes: [],
  },
  zoho: {
    label: 'Zoho CRM',
    apiKey: false,
    authorizeEndpoint: 'https://accounts.zoho.com/oauth/v2/auth',
    scopes: ['ZohoCRM.modules.contacts.ALL'],
    extraParams: { access_type: 'offline', prompt: 'consent' },
  },
};
