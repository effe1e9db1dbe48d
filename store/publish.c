/* The best files to the user's records folder: see publish.h. */
#include "store/publish.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "store/records.h"

int store_best_publish_user(const char *results, const char *card, int m, int n, int k,
                            char *user, size_t userlen, char *err, size_t errlen)
{
    char a[PATH_MAX], b[PATH_MAX];
    if (!store_user_results(user, userlen))
        return 0;
    if (realpath(results, a) && realpath(user, b) && !strcmp(a, b))
        return 0; /* results is the user's folder already */
    return store_best_publish(results, user, card, m, n, k, err, errlen);
}
