/*
 * libpq's types for libmfa, without linking libpq: libmfa loads libpq.so.5
 * with dlopen when a postgres:// store is opened (Store/Postgres/LibPQ.swift)
 * and calls it through the function pointer types below, which are taken
 * from libpq-fe.h itself so that they cannot drift from it.
 */
#ifndef MFA_CPQ_SHIM_H
#define MFA_CPQ_SHIM_H

#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h> /* Debian's libpq-dev, without pkg-config's -I */
#endif

#define MFA_PQ_FN(name) typedef __typeof__(name) *mfa_##name##_fn;
MFA_PQ_FN(PQconnectStartParams)
MFA_PQ_FN(PQconnectPoll)
MFA_PQ_FN(PQstatus)
MFA_PQ_FN(PQtransactionStatus)
MFA_PQ_FN(PQerrorMessage)
MFA_PQ_FN(PQsocket)
MFA_PQ_FN(PQfinish)
MFA_PQ_FN(PQsetnonblocking)
MFA_PQ_FN(PQsetNoticeProcessor)
MFA_PQ_FN(PQconninfo)
MFA_PQ_FN(PQconninfoFree)
MFA_PQ_FN(PQparameterStatus)
MFA_PQ_FN(PQsendQuery)
MFA_PQ_FN(PQsendPrepare)
MFA_PQ_FN(PQsendQueryPrepared)
MFA_PQ_FN(PQflush)
MFA_PQ_FN(PQconsumeInput)
MFA_PQ_FN(PQisBusy)
MFA_PQ_FN(PQgetResult)
MFA_PQ_FN(PQresultStatus)
MFA_PQ_FN(PQresultErrorMessage)
MFA_PQ_FN(PQresultErrorField)
MFA_PQ_FN(PQsendQueryParams)
MFA_PQ_FN(PQntuples)
MFA_PQ_FN(PQnfields)
MFA_PQ_FN(PQftype)
MFA_PQ_FN(PQgetisnull)
MFA_PQ_FN(PQgetvalue)
MFA_PQ_FN(PQcmdTuples)
MFA_PQ_FN(PQclear)
#undef MFA_PQ_FN

#endif
