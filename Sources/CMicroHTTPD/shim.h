#ifndef SIGNINSIM_CMICROHTTPD_SHIM_H
#define SIGNINSIM_CMICROHTTPD_SHIM_H
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <microhttpd.h>

/* MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call. */

typedef void *(*sis_mhd_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/* Starts a daemon on a socket the caller has bound and put in listening state (MHD closes it in
   MHD_stop_daemon unless MHD_quiesce_daemon handed it back). A pool size below 2 means no pool.
   The connection limit is the daemon's total (a pool of threads shares it out evenly); the
   per-IP limit counts every thread's connections. */
static inline struct MHD_Daemon *sis_mhd_start_daemon(
    unsigned int flags, int listen_socket,
    MHD_AccessHandlerCallback access_handler, void *access_handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    sis_mhd_uri_log_callback uri_log, void *uri_log_cls,
    unsigned int connection_timeout_seconds, unsigned int thread_pool_size,
    size_t connection_memory_limit, unsigned int connection_limit,
    unsigned int per_ip_connection_limit) {
    return MHD_start_daemon(
        flags, 0, NULL, NULL, access_handler, access_handler_cls,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_socket,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_cls,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_connection_limit,
        thread_pool_size > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, thread_pool_size,
        MHD_OPTION_END);
}

/* The size of the request line and header block of the request being served, or 0. */
static inline size_t sis_mhd_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

/* Adds an empty Cookie header field to the connection's request; the key and value are
   literals, which outlive every connection as MHD_set_connection_value_n requires. */
static inline enum MHD_Result sis_mhd_add_empty_cookie_field(struct MHD_Connection *connection) {
    return MHD_set_connection_value_n(connection, MHD_HEADER_KIND, "Cookie", 6, "", 0);
}

/* The name an invalid Content-Length field is given (as long as "Content-Length") by
   sis_mhd_disarm_content_length, so that libmicrohttpd does not read it. */
#define SIS_DISARMED_CONTENT_LENGTH "X-Invalid-CLen"

/* libmicrohttpd 0.9.75 answers an unreadable first Content-Length field (not all digits, or
   over 2^64 - 1) with an error response whose status line and headers it sends twice (its
   caller ignores the error and builds the header again). Called from the URI log callback,
   before libmicrohttpd reads any header field: when the whole header block is already in the
   read buffer after the request line that `uri` points into, and its first Content-Length
   field (with no Transfer-Encoding field, which libmicrohttpd looks at instead) is unreadable,
   renames that field to SIS_DISARMED_CONTENT_LENGTH in place and returns 413 (digits only,
   too large) or 400; otherwise changes nothing and returns 0.

   Layout in 0.9.75: the request line is split in place, the target and the HTTP version each
   ending in a NUL, and the line's end ("\r\n", "\n" or "\r") written over with NULs; what
   follows is the rest of what was read. The scan stops at the first NUL: past the bytes read
   lie the unused read buffer and the records allocated from the end of the connection's
   memory, which hold NULs (the caller adds one such record first), so it stays inside that
   memory. Bytes past what was read may be stale; the caller checks the renamed field among
   the headers libmicrohttpd parsed before acting on the result (a stale byte renamed is
   overwritten when the real bytes arrive). */
static inline int sis_mhd_disarm_content_length(char *uri) {
    char *line = uri + strlen(uri) + 1; /* the HTTP version */
    line += strlen(line) + 1;           /* past the first NUL of the line's end */
    if ('\0' == *line)
        line++; /* "\r\n" */
    char *name = NULL;
    char *value = NULL;
    size_t value_length = 0;
    int folded = 0;
    int in_length = 0;
    int has_transfer_encoding = 0;
    for (;;) {
        char *end = line;
        while ('\0' != *end && '\r' != *end && '\n' != *end)
            end++;
        if ('\0' == *end)
            return 0; /* the header block has not all been read yet */
        if (end == line)
            break; /* the empty line ending the header block */
        if (' ' == *line || '\t' == *line) {
            /* A continuation line: 0.9.75 appends it to the field's name, so that a
               folded Content-Length is no Content-Length to it. */
            folded |= in_length;
        } else {
            const char *colon = memchr(line, ':', (size_t)(end - line));
            size_t length = NULL == colon ? 0 : (size_t)(colon - line);
            in_length = 0;
            if (14 == length && 0 == strncasecmp(line, "Content-Length", 14)) {
                if (NULL == name) {
                    name = line;
                    value = (char *)colon + 1;
                    while (' ' == *value || '\t' == *value)
                        value++;
                    value_length = (size_t)(end - value);
                    in_length = 1;
                }
            } else if (17 == length && 0 == strncasecmp(line, "Transfer-Encoding", 17)) {
                has_transfer_encoding = 1;
            }
        }
        line = end + (('\r' == end[0] && '\n' == end[1]) ? 2 : 1);
    }
    if (NULL == name || has_transfer_encoding || folded)
        return 0;
    int status = 0 == value_length ? 400 : 0;
    uint64_t total = 0;
    for (size_t i = 0; i < value_length && 400 != status; i++) {
        const unsigned digit = (unsigned)(unsigned char)value[i] - '0';
        if (digit > 9)
            status = 400;
        else if (total > (UINT64_MAX - digit) / 10)
            status = 413;
        else
            total = total * 10 + digit;
    }
    if (0 != status)
        memcpy(name, SIS_DISARMED_CONTENT_LENGTH, 14);
    return status;
}

/* The port the daemon listens on, or 0. */
static inline int sis_mhd_bind_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : (int)info->port;
}

#endif
