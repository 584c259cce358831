// PUBLIC TEST KEYS. These RSA-2048 private keys are published in this repository on purpose so that
// simulated Sign in with Apple runs are reproducible. Anyone can read them, so anything they sign
// proves nothing: never use them, or trust tokens signed by them, outside SignInSim.
//
// Generated once with `openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048` (PKCS #8 PEM).
// Changing, adding or reordering them changes every `AppleKeySet.fixed(seed:)` and so every
// recorded run; add new keys at the end only.

/// The embedded public test keys behind `AppleKeySet.fixed(seed:)`.
enum AppleTestKeys {
    /// PKCS #8 PEM texts, in a fixed order.
    static let pems: [String] = [
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCvWctgKK1qvL3P
        1o2oZNaYK7Z+MweQ6jj0RC/Ic4kblTSp9lvtH/RdSoBuzjgAgIHJt63gjg/c/lj3
        LlX0cq6WXkB3Rp3f0/p64b5QBSJv/mio1iNSrs8i0JnuKet06xbQxRSfIAi8g9H7
        1VHoTqS/60RX36YLR2UTlbbBqL3j1sEOg1j7n0/GGqhL/e3j3nzOWtmJPYcwcuOq
        8Ih2RbI6+33lL+7Tz/T+aB9BOkvgiSHUiRpMLE9l1cfH6Ezj5zMb7QjdRYObI0QV
        Tr/B1zXCDh6eiOJiqkK3Hh6nKIAqL1bgx4zv9qB07x287gbAdpOXXJRmcbVPZuI0
        NDLIPRWDAgMBAAECggEARDy127BIuApF9V0BmF/RcLtGE7tI/Phg/JGSZLetSeoY
        6fFAmbj/L9S/wR8IBQ39M+ICTKoL+0yRk3NZKLz+Ou7nuGLnKgTEa1Bw7pPo8Fs5
        IEbgzRrQ6bPyyw9OHRwlL04adcgSDkZgD1fWvYfpLfRgjq+uXqJEb8gprBg9+Szi
        v0ufiG3Qia9Tz+P9iYxiBlPaE9Y8rd+Nmm48wZMigJ5HQvvysh3pc+UIQBaIqUlF
        8PNyYqYvMtR781rdObYmT6iMAB5PtM0mVjcgq/7MOEp3vqRop69g9xupbvq+1xba
        rwJHlx/35saDXZzmuow0CJNa8QsW8q05BLfFd5aP9QKBgQDcrhwA23XvqmR3kan4
        vDTQ/0V2hjRZhSmbIMW5GLd08mIArDDBzoaeAMSHgNZTFnZPbWikD0qPISp11bEI
        b+ORpzdHfQbhCwdDXyTt1/jvR7dMoTsdYnRSMRmvbJrbQsvsJriIaCg9xaPh2MF9
        MTTF35jrCtVkfWd7NSzVqibURQKBgQDLammnmDxbeISSxnc3XTcnWj6NilAJC4Bq
        mnCueS0DGgvYr04/Q4Znf/xLstoE8m0hSbeRbzNpDzIhZlcpbPBSmwfl/1I5wbkM
        Yw4xJCsXvF28aXri+laWCuWeLy8DpcyV6nyQjJvUZBOB6fuzKCtMRafATOPKS6jZ
        X3lzsvUzJwKBgFTQheq+biFit6JM1arHivUYZzYadlxBlbANdHCjUz8bORdRFpwm
        KA7p9J6voa/lXitAvYrwZZOFB7CqJJQ9jJUaU2CiaNZtSqlWE/dlnkM4qPZGsVWl
        1VcRj/GgKBRFI+LrLtkeTvkO0OGoURUwqDu0qC0NyN4KZI8x7L1h2/KRAoGAKPxu
        /3LgLnoRFFXi7YfdthMr6W8GA1yK6m/l5nHKDQbxfh6MgJjFexNBrasC3N5P+NYW
        o7opPLDwI+SwCUvG/I36QHB6i+Kpu4I1+NbVy/mLVYxXU2anjaHydDYDnhOJLmfJ
        44JBX8EuYQ3ZRlcAqmSakVesyjUGd44SNarIVx8CgYEAhVWcC7NKpNMET21ejazC
        JWJYxlWTGFE+ukrNVkpLnHOdm10Ee5hNNODghLOXXF9oFwphGFArZXyyZxpQbK/O
        smRYtNtEGOU07dVdYPn3wNvH+hgthAXIDadeiQk5BvRMPN2uS1MTsRclC6pVfBoL
        CZN4Y6wUMsSsAGztqd5o048=
        -----END PRIVATE KEY-----
        """,
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvwIBADANBgkqhkiG9w0BAQEFAASCBKkwggSlAgEAAoIBAQDpxQcdUMLRydQc
        /7DT/wnfICfhbAaWIUCeXl8XCRhskSys/ThSg0ON2TFAAEP9vz5gwe7OwvV5r4Ji
        icEFtguGUeoxrosEJIoaUt+n0IimWZrMdjSjtb3Q8e1AYYZfnAPW4EtDCKBu4q50
        eGAQmapxz+cenitTBCjgZEaf+G9kK/fOFhpuNk7yzmqg1ItEihhWJ94fsTtQZ0IR
        QjGTYC90ZOUk7snm9/QCxfJzYp0ehGiXBrgbITJ4ZOHOcgb813hl46InaVlQ7yWn
        KC4z3caYCxygLbm/+mZWT7qnZVBWFpKPsUnPFdAeatCInTRR7L9H/NwnJ3F98Xfq
        OzNX5UvVAgMBAAECggEAcwR7BKR4xmmMUJxJb3T7cWnL1XCmKPXBamo6VQYnmzsu
        hQqtzINDGKa1Qa0fxthyo36ntdlcl/uPplXqv5mbQAJLvRgI1Af6XwtJebLzmQ1b
        SaAbNDU2aHiv585UI/SKOw3uWdQDw6sKdMnJUkGZCBhnubvOyzCvv//2c7zzaY/7
        tzcDgGYYQU8aCRjMNWD58zXhXlkmRykyRhHoTYn3KIZecj/F/Lof+MT+Ot48JGcV
        8YHaXQI2dSLeHa5Xxb69gYt7ZKQ/ApoOjc2tb42aO+z2/YxkhKbCRjEOEBO1kW+R
        ZA8glXWvKGOPP3IBeM3IyGezUzJCoz06rp0AFoS6/QKBgQD6qBxKxSvNREmFeKTO
        uuowlAkGvxOOuo4YuRDcb3CQUmZCbsqL+QqlmNWSE24HKLWUR/k9cNzQ23vJ12BJ
        pZr36NNyKEj4zzHH7VmEry7qMOkweheA1Jy3WGhaNVaJiJXJ6hjl35ba2WUqxYE2
        5wVnbWuXij5UXt6z0WX8Smg6QwKBgQDuwMLLbvHv/GhuKZXI472/B1P1QDhE//vg
        UUa1vb+NVEUARzaOSUJCH/AVLPlZZxlFyYhU5DPzjH9hhokDyOPby5D4UWEt+5sr
        sajoyLjJYl4OA23Y0JnEpHdH65XJJs9qRr/RwQiUWNtBRoRoObHDwxhlRpMuVmsr
        d4KyfMw8BwKBgQDW7EKmEf6G2SC5Y0LdSAP6d1RuBnS8k1W3+Sdt+9fmx+CK4fim
        oHnyl+O4hxR26v8XD8e0WQvdwfSYkyYqv+bq3yY+4i//t5kVtnxletidUicAvA9f
        Fe7yfsmrX8S91PGq2iFTKa5uJK3MSOGMs/Y8QuRYYd8j9Ny8DraF5z8LhQKBgQDt
        +S5wLT5zcUf5/fMxUGbxwHEb9A3iILDDDuAHCIGkcglw1Ip5WmXzmPfpc3F6fjv/
        hngf/XIW4MSaxclN/2+2xfnSuPK/LZml/Kgalu8ws56CI0LbKFkMWs4V3qjm3YtC
        KBDMFrbhfovUTWBurosUUCLB142eUz7xDWc1VxUPAwKBgQCaHDeGgyzJxwKizadF
        NJWKpM3X9AyZVwi5kY6rEo2mHHYIPOa80kloPUtZVL9xDXv3VvkX5ZfDS35y5CG0
        CQeCpJaEF67llSq7hGLCAh3ZbfY98ctxS9LT8qFvPjK6TMwWu0lIfZLqkV/N7Tfk
        Fp31Z+3VTuH1W5cDlhJU+Icncw==
        -----END PRIVATE KEY-----
        """,
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQDKWVtC5RDKs9cQ
        6sBeoadmWyLUpylvHMVP/2M3uiChVlU/21KfUuwtvS8HHeDlNAXCWXsix399G9L3
        KjNnhZLn1XJSQzsIegKG3FlLeA5rpd5aOBrubCASvWcVCeUItp123uqpKBdagSEW
        +xXLfk8DI+3IyJgjqVG6rmszVnzZ8HxA57amRbFYAVTMgavuwUt+enJUDrDlBa8f
        yc7kwHWqJgEWhbsN6syz7OSqizOkxwUn+qZdBP04MJHDyincwSBHece8YUuH6IJ1
        AkOGBXVngk3JTqgMYci/wadqtzhnkEhvd6cwzaeGm7y6tHPvoUnGzH/GIWqCZNhi
        5gT4J8SjAgMBAAECggEAL2bUXqzbjKipeoCLtP9ogC1cUPWh2rIiNNXOb9kN2M2p
        Jc7ioYki46ocUK36p6bSrI8arfCPGIdCmf0MUrVzTxTs9YFjXF58pgwLbQcAVc5i
        8r6O7Ihu0QUGl2KcgTiKVbTtwtet9NkoH8KM/gEmUEWD6BO5tCzvhOxkF4Asuj7V
        YndHKLf71xOSCdBVfnjNuFHDNa8UyjGKLY71d2d7eSaPNuu/1MZR4GKEFPMKJHyx
        kanl/Dv/5yqP2Ea5AFhPauzNBeczQGxfmzqPnaBNw3VYBObWJJJc5OpHxL3yTOew
        xEPJk9tbnBDCjhGI6WbEY+iu5WNF+Avb0ynzeTOIPQKBgQD1q3p0Ax/2q0TI78f5
        l85B+8L9UyXHGdWeyxxDzbWjnXU2elPvTS+4hXbKj/sVDnqTGIi0yhVazmKaRHd/
        xlE+dVL61VRtsH5lSsxa//KZ9jXSz3esNtT8Z9/6iTQK1g9L+0AyyG3A2lT4K+Ad
        n2DGp2YSXlFcI1r5M4dj+PJgdwKBgQDS24zMckEkQBOcp9oIRKbyYW8axMrS8dN8
        xhS8JkrP55auUlem4EkLrqi4Ci+wAfZV/ZynWAYzlNfDV1xQgmr70kO/rQ9U9LXG
        fvDaJ77gWVOxToRRT485l40n7qpOAv4k91aMKrqar+fHGovRmYjoy1ub0ZQFWEeh
        DegzvbOUNQKBgHC+4vLtIDU3gtjo2pDcr4cuwN071KGcZKJ8upsPhGXzdICtAWpY
        tSbs8YijLWsLewuY/dxixgwnna8I7wLQBCcy9wMw9o9kqY1ZF5JH1pH8IdV+64A4
        peS002EKqLy0Ys7PHzZvL5eLW+WNVUyjAWoKF1kkuhgcDbtCf8dM0AefAoGALyQe
        qmaw4aXhvJhaSpburCnUaSuuHNMr8S1n3VjCSREBwx9tsUVbj10RI3RDjRojNL5q
        k48+c7HHO0kAvo8p0/sCYowSbW/4Y9RljKBuMEJIT8+6DWO4JawYRuE4+g/5OdKC
        avvylDrXms/4infFACbW6FNGwJsoCH3PeCHlUDECgYA2+7zTakZmZLoXtm2ls/Vf
        0N8aCRF/Q7vYNO/2jqy/gN1adpjSQug2MMZxUC3GhU2RXQdAmAFnK5PpUoIR52i7
        8iBrYMVF6RoUE/fOdoZG8f2UUv7pV2nx0XDQk9jZDS98MKG/sjUBNVJAk0hUXsh6
        Fh9UiVM+QWkASvhmfhc94g==
        -----END PRIVATE KEY-----
        """,
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCxVUNK2S3/uLc6
        9ns/s3BcNlb0lOtfygCdPXsDmLwcAPTEv7JJwIP64Ev7R75tJFgGjAap0DrVXDNf
        /UdIxXswpwqt2zR053YExoSZ2mWD3cp+TrMKs9ftVgfNtjze4iJkq05vYGS3lBxE
        Q6bIExvqelAMe/bc0zOaiyKIP/9a2ol5SZX5eUNZXm2cCvuRW7FGdJMauEyaLKVV
        UM3+3zIvPTvgC+jBh4by+/EO7Uss5QriGiLXbzCe3eljfC9KKDXCgQkuaGGlohQK
        4GHI6sRuHMHz49OY5o4H1qS5XjqO6lbVIIY24mYHImwul4eWJElTUGYVlmTfidju
        WoTuYnB7AgMBAAECggEAU4juohucZ5ID/mqNtHw6ubV/UMe1+PGXSHrlr9QLCMYK
        h4Ql4Egn4840/LHXKmKsdKkRmnzUuh0stlMBeW5NkaWeijdwhoFiPu2lGTSgDXY1
        JTq9bJU7ajnUgzsNgZDU0sc/s4ec6j2C80VLE4Ss6c+kVb0vlOaIsIxKQBSlnY37
        5mFDa20cmFLyHlFo8s6Sz23o3wh5GzGjEcXRJ6wF8ogVv9SfpkHU0V5OtqO5ipQm
        3oEiFiFSgqWubWpbk3pSKfA38xG5XYXJKbL3iIqW1OpCbzJInEFletRCcTfq+p5S
        t/IoB0S2i2nWDCEH3MukOFI/GqoSsaZJ2ddlswZjQQKBgQDWg5K9kSSyY157Jwis
        xaZ47aOjI3tYxmuHTVkTftDcQKkY9oNIF5x8JAV/QqToZep/6A7zYjEsfW0GNI2R
        3JOlqJKLYIZial8DXEZ8Yr6FTmqMVbbEfCineaUQ/82kHz84dhPPQ3xc99H7Tkqp
        H3uK41DQa3sEAcHegd3ifyqqhQKBgQDToOQSvxi6k46v6L2FW3eciNbWyFNfqb1I
        uYxeYICXFpjYFUwhmg0MX8DooqsYjwIX7IK46tT/QUglj/qMMrBx0M6RJdVsGV69
        O4k8JAQM+d/KEjqo9pSfq8QkKh8dNwEugYFWe55O+r8D1Sm+LLqlmBRacytBUyAt
        5rz8kXse/wKBgQDJ20nsRHaJvuQbcyHAosUCKmy/iRX69cwdp/VYWQ9lExuMN/xV
        jJJeZu8dT7MqVS0Ta2UWNaIcQXKkUjOdvDjbvAMaUJxkY8BAw0Y4qhqqCp5MrCOu
        RT9kSR3BH1V9SUIOeV4uvUx7l1/q4UN0XgG9MibL2TgLDzRFk2MeTZfymQKBgC4b
        EVVcOMD9QMrmQ9P393ks/tFQV4mx60Ea24/8KkfAbpA1I572dv1JJzgHqIrzLRuV
        NW2gC8OIr3UvhwBgUryZJ0fMHFEuvcswW1e06QUCs1TM3+bLwdl/jH3sh1bQEvvU
        zx7OU9EVI+Rr3mpGSGunVFfYW4Yh3BLkACxubYp1AoGAJvNzFXgGjBclRiZOodBB
        oErvmQWY0Gu9dYBfPjmnXGqbgOk4sifftMdXOVHk/0WvPPB4UY8JQ3SgbBoQPywI
        dar+VEnq4xqJ3tSBOziVt3hU4cwaSW5RjF22BkpGnKHc6ckGlmZc3fnmmOergNu7
        3T2SMkMxvurFG23oCYPgfM4=
        -----END PRIVATE KEY-----
        """,
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQDIgmJPbH9I7/sZ
        ddRWHi27SbhPWKLdD+AIk+OMUK7ExXsBTH4Bjal07U9085nHY/4r9eOZxF4Ko/cs
        ITqUfQs01yXT558ghc3QwwqMAxr3Ctk1sqo9Dkp0K38uWEw96FthnwlRYkp0cct/
        56fFxLGD7tGXBprBc3ncmg5jZOr+aURIskIYSYKTM1PpT/gRraEy/R2uiN9x1Fip
        J5z0fGc7RezFl3jhkZDlSRxtnQ0auLiwyjkOEY27rgjnvRgG0n2oJhmmdIbO97DC
        OorAtxVWPGT7h1cb0lKapn+h245zi2F5JWzSOxsuqE9lehvaLdOZ+KUcEPzh12qf
        D+YXn50pAgMBAAECggEAB8Pt7wXEjbR2mPM0ZqPrUT0vCUqlXxKb8nUYy1C+HgKI
        a6HU4PZFrXC54q2DA4L6v2TZ3FULr9WPD2tXh5PqrNCWx1TJd8La2FaPaGH/57io
        tiDN4Ui2Bzb+iVLT3BNtQ5P7UkawW79i+liESb9fAR0tCpBvyqVwXyPrwftw8uqa
        8WV4UkW1EopECQrmHCwcq+siZ0WIe7mgS7AFBH7i9XGuNhRG/dgYrEOLssmf6jHa
        hEeEYetm1Ae61HcyHg4ofmJZEJWIzaDPkPkdEvno41R485ro7PJBIOrZGZtsd0jE
        h9bxSvjsDnS15h5kZBBG8xX46HhduKCCbGWnVL2w8QKBgQDr0pZ0Vb3jn+x5Tv6p
        PVE5KUcBB/L2wgfjJa4Bk0gF3dvPALTrA+H+0nuPjO+ZgHxlXtC+X3LGh/lJCAyR
        GTmIbVJh3W2voTTH2GEm42nSbuMLdDNcH2LQXy2Gz5ZIWligP3/vSEDVtSnV1RFO
        crOdmp0eVs8tnF5gEW+qOCa02QKBgQDZqk0Am5JuoAgY/hoSF0XkYooxIpoEwC18
        bcVCA7pazP3TTozKCwOs0OFZJv8A0I99beJ3ZduI9ufc3U3Zv4nzJS7Tl5grKuz8
        x6OM4Ybq5xxmmFMbfZ8YaTDHQJX7LMeblI0H135Vn/InIHLWT0qaUYRzpoEedhPb
        7Tj6kBq40QKBgBpX3vjF7z1zSv5OJcKQF/eztbvWwHxyNmFYfzSr2DrXist3/73V
        JDTMHINvsgBKyxqj2du6W97zp5RR8t1unO+xjqdiDfO1pWjBsjCe7N5WBsTryST8
        WJSAXVyW6enRNd9I2KjJQHzfDPpXH+TMiWYMtIqEFga5Vg2TRQ8V0LUZAoGAX7Vr
        cHX3uF7z0JGCwyuqltbhbuOJF8es+IaH8xQSkDSM86oZbAnVztp2DC6CeEg8n+l+
        aAPIuXvfzhUdUz7OmLRj17RTu79/P1NFTgAoxAdlTJN0D6V4HFK8mRCEIlK5Xma+
        cJFHwry2zI+PDz8ETcDEXdn78nn3F4BCyqIsrdECgYBi/AbLeu0ZX9qVcBgyIvg+
        hk6Xk8tgpQjPPYIAqEJCOEanlHNigSxVddJMoLZXl00nkZNHSo3f8iydhtL1uweU
        2MUSXc+bRkcSKJ9N3hS4fI7bSVpK8FvX0OiE+Qc/aWE3/Tz+r3EoI7r5TtTauWel
        Re8b1p5aFn0Lgk22vVrVyA==
        -----END PRIVATE KEY-----
        """,
    ]
}
