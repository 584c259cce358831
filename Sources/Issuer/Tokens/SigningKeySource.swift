public import Cryptography
public import JOSE

/// Where the issuer's signing keys come from.
public enum SigningKeySource: Sendable {
    /// Fresh keys from OpenSSL's generator, as a real deployment makes them.
    case generated
    /// Keys chosen by a seeded random source: P-256 scalars drawn from it, RSA keys picked
    /// from a fixed pool of test keys (generating RSA keys takes 100–300 ms each and draws on
    /// OpenSSL's own generator). The same keys on every run with one seed, so scenario runs are
    /// reproducible and quick. The pool's private keys are public in this repository: never
    /// use them for anything real.
    case seeded(any RandomSource)

    /// A private key for `algorithm`.
    public func makeKey(for algorithm: JWSAlgorithm) throws(CryptoError) -> PrivateKey {
        switch (self, algorithm) {
        case (.generated, .es256): return .p256(try P256PrivateKey())
        case (.generated, .rs256), (.generated, .ps256): return .rsa(try RSAPrivateKey(bits: 2048))
        case (.seeded(let random), .es256): return .p256(try P256PrivateKey(random: random))
        case (.seeded(let random), .rs256), (.seeded(let random), .ps256):
            let draw = random.bytes(count: 8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return .rsa(Self.parsedTestRSAKeys[Int(draw % UInt64(Self.parsedTestRSAKeys.count))])
        }
    }

    /// The test keys, parsed once per process (parsing and checking an RSA key costs more
    /// than a whole scenario).
    static let parsedTestRSAKeys: [RSAPrivateKey] = testRSAKeys.enumerated().map { index, pem in
        do {
            return try RSAPrivateKey(pem: pem)
        } catch {
            fatalError("embedded RSA test key \(index) does not parse: \(error)")
        }
    }

    /// RSA-2048 test keys (`openssl genrsa 2048`), for `.seeded` only.
    static let testRSAKeys = [
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQCy1GjZzhdg1aBA
        Ou/LSfPRa6rkJsZjieVUX0ZIaXJSZOxCrKnJfii9XnjnslBZha5d2r6jB0j6fTEh
        1EvVrkWQc1RK9qEhz4JRyOqTFoqqUCqlBf+5mT4OABdyFwkWRgTupoPGdvG74Fgx
        aBp3ZLEElYmkaj4Rq4Lo1cYid1r33uhIKYTMnzkIlzba9j9FRmyi99+sjR7zRa+z
        KK1ll1sXkwuIK1VBjo7dd2lgL1IEML5de8BLCgo/Q8F5NANLNi7eZoS7GTb9trPE
        xVeLc2s17MEoKcVQm71vZ92imOfOIDsnbSE+BJfj1aPY1065asLErWaIFGcgiWFX
        Ehfab6R7AgMBAAECggEANJe3hmbQBVCOYpVytGy5YhuyFIs6yUdixJ+Igf9Q+d5o
        hWtWO8X4oUjJcgrFCq8ACuYsLrITymdLLdHLw7oPB16DqdBCrzjh8L+QDVYRzejp
        wcKz5Jem4mMwggM4Tu6kwLMECjgs+74M8erV7csVLG32Hv6H5pZ0V5mXPcewXzkW
        ShDOI+Av6zDIeHL6Ez9jVXgOwFiJerRABgNgir2bz4D8pAe3T4O8w9j5DwwohMir
        HR8HWMI08drcipIi1O8AsRks3wA1Nqc2tfdgPgq6YK1MKQguPeN8mtoTcbL7iaAT
        P6P2OUpJUd2vJTsB1AsZpDKd/sjvGwjVOWTRJ4H8YQKBgQD0fIsz2fdhNPJXtZgF
        DvvWOtgoSfFycIiJMhK5FWm9505Z7g+lYeK6PbJ8fp2SOQ3b6UlUnhjl77rG3Amq
        aMIQB6+CpQnKoqvI8tUY0QE/hRZEqgQnA6uBeTYx7PKRxGjVGS0PNilXe4/LtuBH
        XOV985YLzDt578yx7qfQsVqdeQKBgQC7QFPM96wEMoW3XOUPi/6vhnEbPCcITOWL
        hlOur8fx94sB6zsRdF05H07O+C+ZlOBQ25wdGeoh/693INXoQ65atpm1SVdvqiwG
        Wf/jfNtprFODZSU6w2RkriSEeiPcyl2gV2s2bwZ9egEitol2ramBtiADBsXa1bqH
        sPYvTSr4kwKBgENMZSUIwsfHQ05Rdl8uGLSHziiI8iWGRI8/cVfxRQI5QaAPn87u
        evK5OQB7+fPeMKpwNPdN7ZyduNQ0jZSS8ZhoBS/5LhDRZmgSMAZ8wdMyV0bfZfU3
        VWZ2byyfBMaLQjAmlfix9/9Uy+hPlr0OHT3mZ08oENcn4zi3cQpJR6BBAoGAQF9S
        78nNRvwfX/P9gyS7f5gWViiNuprE5vxc1Fb1w8c38IbvnYaFbdfHfftwUboOi32T
        46U/CkUeCzQslVZ/IAxaNyppdqfnzp8uCwSnYWKuqyMgc10srDf5sdlTbtna6f5j
        iykL8CL7NPXPuA7nkQINazzu09ZZ87/wQj6jISUCgYAJ/VRO17p25Vd1jmCPmW+j
        4sJDvhj1XDYErBA80jDgcvwaFHtyvOMduV8Cq4prj6aOMIJhpmYbpCEZnNzi/X1O
        LbY1OlL6iyPBcuq42rOpNhPbk1QtDife8vQFWmbaf8JAFqiJ8MQk3KHp/KB9+wi9
        plKx7goof94nT6YvLgSAvQ==
        -----END PRIVATE KEY-----
        """,
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQCjy3nK4rzITFj4
        r/4WEcpk/d+Grq50J35/cM+ml30ax3zQnTLXYYogHs1Im6d8q68olM1H6gV5qpHO
        vBLwYdLAqkEnr8zxyjFbEpQ7dme78K3T7Mka2/kcYvx92kqQFUU4w4M8lndS5vSS
        0xYtINVVjgJ8Riiew0/9VYANDNIKbJPw2BRPXS3wKHYkRloojSdPZJst2JKAZrDV
        bHshwJRZyH9c0Rv59fI4gjdcICR6nFn2UQcDO3oeBk6yBA+0qYksyEVTfguMuPld
        wb1N4tCm3M0APceWBY4nIJ2mBsJQ6/TVr76+0SrCvdU+M50KyRdhPnx1jfq8T23F
        8Yej2e9rAgMBAAECggEANtSN/DtDi9925yTu7w9ci8sqcOj30D1KTLoEYRWUFQtT
        fngpBU2LEe6NtLEac5L7Sx/oyhqOY6iUL7roshxlEwbLUdA5UHVpaT3CbldYKWNL
        pUY+GeYqMXT3Zd/Vlv7v0a0tOPJ7lj5m/+F2qnuzvnSP428O+PqTw8/D0lqI02D1
        P4GTby8okhebeslZImX9dw/hu/sq+xxxMu8FYae6VLsUKCZCIrk1PtTQtsajAw29
        YUri8tuYj3pdp6uDZbbXGjkfRpcw3s5vQss8m4uZZnnJHwd+jdX5DOQAvY8FSQqB
        UNgYVnTDBUzD61ELyJwkIaXJRVH2sBvB6ElvBkhW5QKBgQDU8nMRUd52obm3kKlP
        ehFTMxOd2E06Y2pTzV74KYQ4LrHM+3lHLd31VJqlXS/A1VlG7h41PqDdUuT8bw8q
        TiO1Wsdx2GXFFb48ZOtmwUAN8yIZldGkD1G8BMKcrOr9069Q1+DK8VkTQKX4cUcc
        NhnKcQEvbMVzor/DwfpbECd7HQKBgQDE6QraGtpidVFBjm24FewFhzS/R7S/Bkpf
        bk42YlK0z+5+HLmAzdoJnuM9llKOmkpMWAdcfemovF6oZU7i8oTEhwKHn8bTgf9L
        S8NOn3GbCFDKwX65+3HIE8HLoKqLkrFYATj9+7NRai+bOEdlyrzi4ap1mayiB/EQ
        oE12bumGJwKBgBJKRMHfE0mDOI1gunoeFPDdeTjchD2YnmBWSmrsPfQJZrIhg1gu
        w1q4CpRbfaeFa6ag+y09lNmNridUbqwGjCCejHTlzk/wPye2z1VDEfpgwLQL3zbF
        LhMFIaYNYB2vGebKs/8aXbk+m0LMj/wHVY3CyQRGxmrZNrlcpuE9cPatAoGAQDtM
        oOzVg/yE7v+I5t2vyfXazPKVESL6K7sNpEvacsTJJTY1hMCheTXtJm/cqkvGJLUq
        YY9pIvOfZQr2+qzlhj4MIzWJZAEpx+QE56a3Jj1GLX2E2yIccYmQU94rA7BsTSrI
        7oCmc85RjS6Ei73gc5ntQsNIPuqcRjIkUpfHcU0CgYBZbuSuHjRGHL7EAUE7q+AG
        DYN5GuOGnGDtLKalAA87XYp2H+vGep7pvK5G5CJx1FA7mNleCkfOEqPT453zabPA
        ukPlOHlCTkVC6SkUs7Jw7BQhLehHOcxBjd5U6gbG1oMj7CPNTtFOCuOcrKVjHEcF
        Kf+18DmmQ62kKhMw22FRxw==
        -----END PRIVATE KEY-----
        """,
        """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDH8WncAdMlzT9T
        g8wxzlUKlg+k1X1agx0zLuHto+rIP5Y5hRl841uEZaORBfidbkPfymyxI2Q3sLhG
        waX/tThZa0wWn4wxZq1jCgs9cpyyedtfemzvP+8z1aOnoxfVHDMJ+1vMD2k92xGl
        zY64zVgRxAzmT+cOHxO0CmyyTC4TCHRCGXzXtd/qPsZwvEtHwKqHXJ5IhCPn5OmU
        PDlrA2M73RdIQQa6W8QzwK+OpZf6OLAwf22FA9pnWTcZoaxppD7APbdd4c+ffdrg
        m4PmgJYRwz/O8bf6BATD1n6hJiYKasYrhqu1zKVy3o4D8BMVbb+2gaae6UmUpyaV
        ygkg0f2BAgMBAAECggEALinvqqPjOAGlIue10DQXD3wpPYIrUKggKE6lTGSB011X
        Fo3EHkEyQqXi95t81QB9/GA060tEGtWbHn8ckCcrzP2IklqhGFDgLJNHmBbr1gtr
        mqZeG3lUBdBIWm6+FG7P2/ikr79JKcZ4UyNcVg/XSzbMUarWKr0DJBkaEqqjIrJy
        wwoCJ3fD8cIZOeGQkgB1Av/BMBbxN6FLAiA5zQndJCJaRRrDKceAD3/4OongOinL
        FSq7exdiO/5RKZUD5rVAEzRb9sOsJEoIePekKueds/uQ3RdgVAQW7tpeR7BuuBi/
        SUrM6G17biQCsv4CtTu3jfewh4DwrFkkKjDdWrCnKQKBgQDzGPwBQ4LjUTk3P/cR
        E6XgmLsCh1ptou5jiZ40AvbO1lEtWN/4RPkFrtv7bbo/C8jpkWRTJ0zLroM6KNNB
        EdfhAz6g2LiCb/BVyXieM7JV9CJD74pDfmO1WA0K/bv2FKKjiZoEJIRBXuVraCaj
        b5BsbH8sFZV+qiPPdmp9tq30ZQKBgQDSjhRNHxvPX+VsVsxGUOHd5YQoq4wr7UQ8
        Vor46GOSHwXC6eN5uoc7OWlhxRoHcYlcV1MO1KuW/jEZY/vCwZyO/y6gLJmU65Jp
        zz1n8Y86T6KK/86iB2gxZFZ2wkDbfHx6eM+2W9buMFrOujGs1mM82AJ8tzOyDuHW
        aRyBPuoM7QKBgBR5tkAk/5FF9hvBN34ouYABXT8JR4SUhJ+9p6WZ2k/xnUTEh5jR
        tmfUIpM62sUUqQeDR3/5f25odIUhiymf5x78tvm1R1U1OHkBTzeEAzFaLsiqFGs6
        6gsML40Nchd4BXrgzCgtKzaWV5yEWTzK2M9JFC0SZFUW341J3A5apKxBAoGBAL90
        gfE+gEMop6zDoCuwEDF9KZbxphurO4jCCMwcQ63yl4KMulNN0PmBUtmcJ/bsvkJB
        BT1PFFfP+0VjLOICuyEr2HG9HEnViuS7lNKXS+1xzBMoV/PtWEjRO+3w5JivsWCL
        yhO/nsgnH+sqU1EeAE6q/Ff7Hf6imaglG85KLvhhAoGAYVHNvIJq/6+lFsviy/Sy
        g20iPP5DGc90vYg0PDRgJcD/rvHNg+sE+n2OZlV0utu4MD+vnU7bYOJc8qXSeXFR
        tTbztJMlMKBJSNdhsj3NPYQJ3+mQzvh0DsxB6yhOTEvzMBbKUyvfPKbruITtxhLx
        FsUGyIRFY2mi80R82zca1zA=
        -----END PRIVATE KEY-----
        """,
    ]
}
