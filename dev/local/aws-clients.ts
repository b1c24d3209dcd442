/**
 * Client settings for the local emulators. The stack's own plumbing (table setup, queue
 * poller) names its endpoints explicitly so it works before process.env is populated.
 */
export interface LocalAwsConfig {
  region: string;
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
}

export function localAwsConfig(endpoint: string, region = process.env.AWS_REGION ?? 'us-east-1'): LocalAwsConfig {
  return {
    region,
    endpoint,
    credentials: {
      accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'local',
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
    },
  };
}
