import { apiTokenView, createApiToken } from '../../../domain/api-tokens.ts';
import { IssuerError } from '../../../domain/errors.ts';
import { selfReach } from '../../../domain/roles.ts';
import { toWire } from '../../../domain/time.ts';
import { principalOf } from '../../auth.ts';
import type { App, AppContext } from '../../context.ts';
import { createApiTokenSchema, deleteApiTokenSchema, listApiTokensSchema } from '../../schemas/api-tokens.ts';
import { pageAnswer, pageParams } from './paging.ts';

/** The cursor of the list of tokens: the last token_id of the previous page. */
const TOKEN_CURSOR = /^tok_[0-9A-HJKMNP-TV-Z]{26}$/;

/** Personal API tokens (`iat_…`): each person their own; an owner's reach covers everyone's (`selfReach`). */
export function adminApiTokenRoutes(app: App, ctx: AppContext): void {
  app.post('/admin/v1/api-tokens', { schema: createApiTokenSchema }, async (request, reply) => {
    const { record, token } = await createApiToken(ctx.store, ctx.clock, principalOf(request), request.body);
    request.log.info({ token_id: record.token_id, user_id: record.user_id }, 'personal API token created');
    return reply
      .status(201)
      .send({ token_id: record.token_id, token, name: record.name, expires_at: toWire(record.expires_at) });
  });

  app.get('/admin/v1/api-tokens', { schema: listApiTokensSchema }, async (request) => {
    const { limit, cursor } = pageParams(request.query, TOKEN_CURSOR);
    const page = await ctx.store.people.listApiTokens(selfReach(principalOf(request)), limit, cursor);
    return pageAnswer('api_tokens', page.items.map(apiTokenView), page.next_cursor);
  });

  app.delete('/admin/v1/api-tokens/:token_id', { schema: deleteApiTokenSchema }, async (request, reply) => {
    const tokenId = request.params.token_id;
    if (!(await ctx.store.people.deleteApiToken(tokenId, selfReach(principalOf(request))))) {
      throw new IssuerError('NOT_FOUND', 'no personal API token of yours has this token_id');
    }
    request.log.info({ token_id: tokenId }, 'personal API token deleted');
    return reply.status(204).send(null);
  });
}
