/* store/publish: a tune's best files copied to the per-user records folder
 * (records.h's store_user_results), where the library (glgemm.h) finds them
 * from any folder. */
#ifndef GLGEMM_STORE_PUBLISH_H
#define GLGEMM_STORE_PUBLISH_H

#include <stddef.h>

/* Copies results/<card>/'s best files of m x n x k (store_best_publish)
 * to the user's folder, written into user.  0 when there is no user
 * folder, results is that folder already, or there was nothing to copy;
 * the number copied; or -1 with one line in err (the caller warns: a
 * tune does not fail on it). */
int store_best_publish_user(const char *results, const char *card, int m, int n, int k,
                            char *user, size_t userlen, char *err, size_t errlen);

#endif
