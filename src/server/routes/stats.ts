import { defineRoute } from "../http/route.js";
import {
  RootStatsQuery,
  RootStatsResult,
  SessionParams,
  SessionStatsResult,
  StatsQuery,
} from "../schemas.js";
import { rootStatsAnswer, sessionStatsAnswer } from "../work/stats-reads.js";
import { WHOLE_READ_ERRORS } from "./common.js";

const tag = "stats";

// A stats answer is a few rows, whatever the session's size: the response size bound never applies.
const { 413: _tooLarge, ...STATS_ERRORS } = WHOLE_READ_ERRORS;
const { 404: _missing, ...ROOT_STATS_ERRORS } = STATS_ERRORS;

export const getSessionStats = defineRoute({
  method: "get",
  path: "/v1/sessions/:id/stats",
  revisioned: true,
  operationId: "getSessionStats",
  summary:
    "Tokens, cost, time, tool calls and what rewinds cost, from the usage on assistant messages (as `sessiontree stats`)",
  tag,
  params: SessionParams,
  query: StatsQuery,
  responses: { 200: { description: "The session's stats", schema: SessionStatsResult }, ...STATS_ERRORS },
  handle({ params, query, principal, services }) {
    return sessionStatsAnswer({ services, owner: principal.userId, sessionId: params.id }, query);
  },
});

export const getStats = defineRoute({
  method: "get",
  path: "/v1/stats",
  operationId: "getStats",
  summary: "Stats over all of the user's sessions, in rows by day (UTC), model, cwd or session",
  tag,
  query: RootStatsQuery,
  responses: {
    200: { description: "Totals and rows", schema: RootStatsResult },
    ...ROOT_STATS_ERRORS,
  },
  handle({ query, principal, services }) {
    return rootStatsAnswer(services, principal.userId, query);
  },
});

export const statsRoutes = [getSessionStats, getStats];
