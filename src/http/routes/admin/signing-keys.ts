import { IssuerError } from '../../../domain/errors.ts';
import { toPublicJwk } from '../../../domain/signing.ts';
import { toWire } from '../../../domain/time.ts';
import type { SigningKeyRecord } from '../../../store/store.ts';
import type { App, AppContext } from '../../context.ts';
import { listSigningKeysSchema, removeSigningKeySchema, rotateSigningKeySchema } from '../../schemas/admin.ts';

/**
 * A signing key as the public JWK scanners see in the discovery document, with its life cycle
 * beside it. Public parts only: the sealed private key never leaves the store.
 */
function signingKeyView(key: SigningKeyRecord) {
  const status = key.removed_at !== null ? 'removed' : key.retired_at !== null ? 'retired' : 'active';
  return {
    ...toPublicJwk(key),
    status: status as 'active' | 'retired' | 'removed',
    created_at: toWire(key.created_at),
    retired_at: toWire(key.retired_at),
    removed_at: toWire(key.removed_at),
  };
}

/** Signing keys: list, rotate, remove a retired one. */
export function adminSigningKeyRoutes(app: App, ctx: AppContext): void {
  app.get('/admin/v1/signing-keys', { schema: listSigningKeysSchema }, async () => ({
    keys: (await ctx.store.signingKeys.listSigningKeys()).map(signingKeyView),
  }));

  app.post('/admin/v1/signing-keys/rotate', { schema: rotateSigningKeySchema }, async (request, reply) => {
    const key = await ctx.signer.rotate();
    request.log.info({ kid: key.kid }, 'signing key rotated');
    return reply.status(201).send(signingKeyView(key));
  });

  app.delete('/admin/v1/signing-keys/:kid', { schema: removeSigningKeySchema }, async (request) => {
    const outcome = await ctx.signer.remove(request.params.kid);
    if (outcome === 'unknown') throw new IssuerError('NOT_FOUND', 'no signing key has this kid');
    if (outcome === 'active') {
      throw new IssuerError('INVALID_REQUEST', 'the active signing key cannot be removed; rotate first', {
        fields: [{ field: 'kid', problem: 'is the active key' }],
      });
    }
    request.log.info({ kid: request.params.kid }, 'signing key removed');
    return signingKeyView((await ctx.store.signingKeys.getSigningKey(request.params.kid))!);
  });
}
