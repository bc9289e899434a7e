/* The least a relay between two terminals can do, as the floor for attached relays
   (bare_relay.py does the same in Python where no C compiler is found).

   bare_relay PROGRAM [ARG ...] runs PROGRAM on a PTY of its own, the size of this one,
   and copies its output here with one read and one write per chunk. Keys go the other
   way from a thread. Build: cc -O2 -o bare_relay bare_relay.c -lutil -lpthread */
#include <pthread.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static int master;

static void *keys(void *unused) {
    char buf[4096];
    ssize_t n;
    (void)unused;
    while ((n = read(0, buf, sizeof buf)) > 0)
        if (write(master, buf, (size_t)n) < 0)
            break;
    return 0;
}

int main(int argc, char **argv) {
    static char buf[65536];
    struct winsize size;
    struct termios mode;
    pthread_t thread;
    ssize_t n;
    pid_t pid;
    int status;
    if (argc < 2)
        return 2;
    ioctl(0, TIOCGWINSZ, &size);
    pid = forkpty(&master, 0, 0, &size);
    if (pid < 0)
        return 1;
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    tcgetattr(0, &mode);
    cfmakeraw(&mode);
    tcsetattr(0, TCSANOW, &mode);
    pthread_create(&thread, 0, keys, 0);
    while ((n = read(master, buf, sizeof buf)) > 0) {
        char *at = buf;
        while (n > 0) {
            ssize_t put = write(1, at, (size_t)n);
            if (put <= 0)
                return 1;
            at += put;
            n -= put;
        }
    }
    waitpid(pid, &status, 0);
    return 0;
}
