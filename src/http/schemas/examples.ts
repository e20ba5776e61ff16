/** Values used by the OpenAPI examples, shaped like the real ones (see the spec's identifier formats). */
export const EXAMPLE = {
  eid: 'evt_01JTQ2A8C4E6G8J0K2M4P6R8T0',
  tid: '01JTQ5B3D5F7H9K1M3N5Q7S9V1',
  otherEid: 'evt_01JTQ9Z7X5V3T1R9P7N5M3K1H0',
  apiKeyId: 'sck_01JTQ3W6Z8K4M2N5P7R9S1T3V5',
  apiKey: 'sk_live_9pY3VJ0kq0n4kQm2y7C5bqz8m1rW6tD2eF4gH7jK0lM',
  token: 'st_Vq7mT2xP9kR4wZ8nB3cF6hJ1sL5dG0aE2yU4iO7tQ9',
  tokenId: 'set_01JTQ3R5T7V9X1Z3B5D7F9H1K3',
  scannerId: '8d3f6a2e-5b1c-4e7a-9f0d-2c4b6e8a1f3d',
  idempotencyKey: '4f9c2b7e-1a3d-4c5e-8b6f-0d2e4a6c8e1b',
  scannedAt: '2026-05-01T18:30:00Z',
  firstScanAt: '2026-05-01T18:12:44Z',
  issuedAt: '2026-04-02T09:15:00Z',
  ticketToken: 'eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.eyJ2IjoxLCJ0aWQiOiIwMUpUUTVCMyJ9.c2lnbmF0dXJl',
  iss: 'https://tickets.example.org',
} as const;
